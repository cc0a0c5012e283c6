package vespatest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// appPackage is what the emulator reads from an application package.
type appPackage struct {
	schemas     []Schema
	clusters    []cluster
	hasServices bool
	files       int
}

// readApplicationDir reads schemas/*.sd and services.xml from a directory.
func readApplicationDir(dir string) (*appPackage, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "services.xml" || isSchemaFile(rel) {
			b, err := os.ReadFile(p) //nolint:gosec // G122: the caller's own application directory, read once at start; no privilege boundary
			if err != nil {
				return err
			}
			files[rel] = b
		} else {
			files[rel] = nil
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vespatest: read application package: %w", err)
	}
	pkg, err := parsePackageFiles(files)
	if err != nil {
		return nil, fmt.Errorf("vespatest: application package %s: %w", dir, err)
	}
	return pkg, nil
}

func isSchemaFile(p string) bool {
	dir, file := path.Split(p)
	return (dir == "schemas/" || dir == "searchdefinitions/") && strings.HasSuffix(file, ".sd")
}

// readApplicationArchive reads a zip, or a gzipped tar, application package.
func readApplicationArchive(data []byte) (*appPackage, error) {
	files := map[string][]byte{}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			b, err := io.ReadAll(io.LimitReader(tr, 64<<20))
			if err != nil {
				return nil, err
			}
			files[strings.TrimPrefix(path.Clean(h.Name), "./")] = b
		}
	} else {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			name := strings.TrimPrefix(path.Clean(f.Name), "./")
			if name != "services.xml" && !isSchemaFile(name) {
				files[name] = nil
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(io.LimitReader(rc, 64<<20))
			rc.Close()
			if err != nil {
				return nil, err
			}
			files[name] = b
		}
	}
	return parsePackageFiles(files)
}

func parsePackageFiles(files map[string][]byte) (*appPackage, error) {
	pkg := &appPackage{files: len(files)}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !isSchemaFile(n) {
			continue
		}
		sch, err := ParseSchema(string(files[n]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if want := strings.TrimSuffix(path.Base(n), ".sd"); sch.Name != want {
			return nil, fmt.Errorf("%s: schema '%s' must be in a file named '%s.sd'", n, sch.Name, sch.Name)
		}
		pkg.schemas = append(pkg.schemas, sch)
	}
	if b, ok := files["services.xml"]; ok {
		pkg.hasServices = true
		clusters, err := parseServices(b)
		if err != nil {
			return nil, fmt.Errorf("services.xml: %w", err)
		}
		pkg.clusters = clusters
	}
	if err := validateSchemas(pkg.schemas); err != nil {
		return nil, err
	}
	return pkg, nil
}

// parseServices reads the content clusters and their document types.
func parseServices(b []byte) ([]cluster, error) {
	var doc struct {
		Content []struct {
			ID        string `xml:"id,attr"`
			Documents struct {
				Document []struct {
					Type   string `xml:"type,attr"`
					Global bool   `xml:"global,attr"`
				} `xml:"document"`
			} `xml:"documents"`
		} `xml:"content"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []cluster
	for _, c := range doc.Content {
		cl := cluster{name: c.ID}
		if cl.name == "" {
			cl.name = defaultCluster
		}
		for _, d := range c.Documents.Document {
			cl.types = append(cl.types, d.Type)
			if d.Global {
				if cl.global == nil {
					cl.global = map[string]bool{}
				}
				cl.global[d.Type] = true
			}
		}
		out = append(out, cl)
	}
	return out, nil
}

// activate makes a package the deployed application.
func (s *Server) activate(pkg *appPackage) error {
	gen := s.sessions.Load()
	if gen < 1 {
		gen = 1
	}
	clusters := pkg.clusters
	if len(clusters) == 0 {
		clusters = []cluster{{name: s.cfg.cluster}}
	}
	schemas := pkg.schemas
	if !pkg.hasServices && len(schemas) == 0 {
		schemas = s.cfg.schemas
	}
	s.app.Store(newApplication(schemas, clusters, gen))
	s.cfg.logger.Info("vespatest: application activated", "generation", gen, "schemas", len(schemas))
	return nil
}
