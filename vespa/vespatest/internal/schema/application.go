package schema

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
	"regexp"
	"sort"
	"strings"
)

// AppPackage is what the emulator reads from an application package.
type AppPackage struct {
	Schemas     []Schema
	Clusters    []Cluster
	HasServices bool
	Files       int
	// QueryProfile holds the fields of the default query profile
	// (QueryProfileFile), nil without one.
	QueryProfile map[string]string
	// ModelError is why Vespa's config model would refuse the package when
	// it builds the models (a field of a type no schema declares), as the
	// config server words it; empty when the emulator sees nothing wrong.
	ModelError string
}

// ReadApplicationDir reads schemas/*.sd and services.xml from a directory.
func ReadApplicationDir(dir string) (*AppPackage, error) {
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
		if wantedFile(rel) {
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
	if pkg.ModelError != "" {
		return nil, fmt.Errorf("vespatest: application package %s: %s", dir, pkg.ModelError)
	}
	return pkg, nil
}

// QueryProfileFile is the default query profile of an application package.
const QueryProfileFile = "search/query-profiles/default.xml"

// wantedFile reports whether the emulator reads the package file p.
func wantedFile(p string) bool {
	return p == "services.xml" || p == QueryProfileFile || isSchemaFile(p)
}

func isSchemaFile(p string) bool {
	dir, file := path.Split(p)
	return (dir == "schemas/" || dir == "searchdefinitions/") && strings.HasSuffix(file, ".sd")
}

// ReadApplicationArchive reads a zip, or a gzipped tar, application package.
func ReadApplicationArchive(data []byte) (*AppPackage, error) {
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
			if !wantedFile(name) {
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

func parsePackageFiles(files map[string][]byte) (*AppPackage, error) {
	pkg := &AppPackage{Files: len(files)}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !isSchemaFile(n) {
			continue
		}
		sch, err := Parse(string(files[n]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if want := strings.TrimSuffix(path.Base(n), ".sd"); sch.Name != want {
			return nil, fmt.Errorf("%s: schema '%s' must be in a file named '%s.sd'", n, sch.Name, sch.Name)
		}
		pkg.Schemas = append(pkg.Schemas, sch)
	}
	if b, ok := files["services.xml"]; ok {
		pkg.HasServices = true
		clusters, err := parseServices(b)
		if err != nil {
			return nil, fmt.Errorf("services.xml: %w", err)
		}
		pkg.Clusters = clusters
	}
	if b := files[QueryProfileFile]; b != nil {
		fields, err := parseQueryProfile(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", QueryProfileFile, err)
		}
		pkg.QueryProfile = fields
	}
	if err := ValidateSchemas(pkg.Schemas); err != nil {
		return nil, err
	}
	// Vespa resolves inheritance (InheritanceResolver) before it converts
	// the types; ModelsBuilder words either as "Invalid application".
	var notModelled *NotModelledError
	if _, err := Inherit(pkg.Schemas); errors.As(err, &notModelled) {
		pkg.ModelError = err.Error() // Vespa would take it: no "Invalid application"
	} else if err != nil {
		pkg.ModelError = "Invalid application: " + err.Error()
	} else {
		pkg.ModelError = unknownTypes(pkg.Schemas, files)
	}
	return pkg, nil
}

var structDecl = regexp.MustCompile(`\bstruct\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{`)

// unknownTypes finds a field whose type names neither a built-in type, a
// struct declared in some schema, nor a document type, and words it as the
// config server does: ModelsBuilder wraps the model's IllegalArgumentException
// ("Invalid application"), here ConvertParsedTypes.resolveFromContext's
// "unknown type named '%s' in context document '%s'".
func unknownTypes(schemas []Schema, files map[string][]byte) string {
	known := map[string]bool{}
	for n, b := range files {
		if isSchemaFile(n) {
			for _, m := range structDecl.FindAllSubmatch(b, -1) {
				known[string(m[1])] = true
			}
		}
	}
	for _, s := range schemas {
		known[s.Name] = true
	}
	for _, s := range schemas {
		for _, f := range s.Fields {
			ft, err := ParseFieldType(f.Type)
			if err != nil {
				continue
			}
			if name := ft.unknownLeaf(known); name != "" {
				return fmt.Sprintf("Invalid application: unknown type named '%s' in context document '%s'", name, s.Name)
			}
		}
	}
	return ""
}

// parseQueryProfile reads the fields of a query profile,
// <query-profile id="default"><field name="n">value</field>...; nested
// profiles, inheritance and types are not read.
func parseQueryProfile(b []byte) (map[string]string, error) {
	var doc struct {
		XMLName xml.Name
		Fields  []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:",chardata"`
		} `xml:"field"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if doc.XMLName.Local != "query-profile" {
		return nil, fmt.Errorf("the root element is <%s>, not <query-profile>", doc.XMLName.Local)
	}
	fields := map[string]string{}
	for _, f := range doc.Fields {
		fields[f.Name] = strings.TrimSpace(f.Value)
	}
	return fields, nil
}

// parseServices reads the content clusters and their document types.
func parseServices(b []byte) ([]Cluster, error) {
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
	var out []Cluster
	for _, c := range doc.Content {
		cl := Cluster{Name: c.ID}
		if cl.Name == "" {
			cl.Name = DefaultCluster
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
