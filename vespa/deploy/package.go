package deploy

import (
	"archive/zip"
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// ClientCertificatePath is where an application package holds the data-plane
// client certificates that Vespa Cloud's mTLS endpoints accept.
const ClientCertificatePath = "security/clients.pem"

// zipTime is the modification time of every zip entry, so that the same files
// always give the same bytes: the start of the MS-DOS epoch that zip uses.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// zipMode is the mode of every zip entry.
const zipMode fs.FileMode = 0o644

// Package is a Vespa application package: a directory, a zip file or an
// [fs.FS] holding services.xml at its root, plus files added with
// [Package.WithFile]. It is zipped on demand, deterministically: entries sorted
// by path, fixed timestamps and modes, so the same input gives the same bytes.
// Version control and editor files are left out (see [Skipped]); a symbolic
// link is zipped as the file it leads to inside the package, and one that
// leads outside it is an error (see [NewPackage]).
//
// A Package is immutable and safe for concurrent use; it reads its source each
// time it is zipped, so edits to a directory show up in the next zip.
type Package struct {
	name  string                              // for messages: the path, or "fs"
	dir   string                              // the absolute directory of a directory package, else ""
	open  func() (fs.FS, func() error, error) // the source tree and its closer
	extra map[string][]byte                   // files added with WithFile
}

// NewPackage returns the application package in path: a directory, or a zip
// file (such as target/application.zip). It fails with an error matching
// [ErrMissingServicesXML] when there is no services.xml at its root, and
// with one matching [ErrUnsafeLink] when a symbolic link in it resolves
// outside it or to a directory. The tree is read again, and checked again,
// every time the package is zipped.
func NewPackage(path string) (*Package, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("deploy: application package: %w", err)
	}
	p := &Package{name: path}
	if st.IsDir() {
		// The tree is read through an os.Root, which refuses to follow a link
		// out of it, whatever the tree holds at the time of reading; links
		// are also checked before anything is sent (see checkLink).
		dir, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("deploy: application package: %w", err)
		}
		p.dir = dir
		p.open = func() (fs.FS, func() error, error) {
			root, err := os.OpenRoot(dir)
			if err != nil {
				return nil, nil, fmt.Errorf("deploy: application package: %w", err)
			}
			return root.FS(), root.Close, nil
		}
	} else {
		p.open = func() (fs.FS, func() error, error) {
			zr, err := zip.OpenReader(path)
			if err != nil {
				return nil, nil, fmt.Errorf("deploy: application package %s: %w", path, err)
			}
			for _, f := range zr.File {
				// A zip written with Windows separators (some Windows tools do)
				// holds `schemas\music.sd` where the config server looks for
				// schemas/music.sd: it would be accepted here and refused by
				// every deploy.
				if strings.Contains(f.Name, "\\") {
					_ = zr.Close() // the error above is the one to report
					return nil, nil, fmt.Errorf("deploy: application package %s: entry %q uses \\ as a separator; zip entries must use /", path, f.Name)
				}
			}
			return zr, zr.Close, nil
		}
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// NewPackageFS returns the application package held by fsys (for example an
// embed.FS, or fs.Sub of one). It fails with an error matching
// [ErrMissingServicesXML] when there is no services.xml at its root.
func NewPackageFS(fsys fs.FS) (*Package, error) {
	if fsys == nil {
		return nil, errors.New("deploy: application package: nil fs.FS")
	}
	p := &Package{name: "fs", open: func() (fs.FS, func() error, error) {
		return fsys, func() error { return nil }, nil
	}}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// check verifies that services.xml is present and that every file can be
// zipped (no link leads outside, see [Package.checkLink]).
func (p *Package) check() error {
	if _, err := p.Files(); err != nil { // first, so that a bad link is named as such
		return err
	}
	ok, err := p.Has("services.xml")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w (%s)", ErrMissingServicesXML, p.name)
	}
	return nil
}

// Has reports whether the package holds the regular file name (a slash-separated
// path relative to the package root).
func (p *Package) Has(name string) (_ bool, err error) {
	if _, ok := p.extra[name]; ok {
		return true, nil
	}
	fsys, closeFS, err := p.open()
	if err != nil {
		return false, err
	}
	defer closeSource(&err, p.name, closeFS)
	st, err := fs.Stat(fsys, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("deploy: application package %s: %w", p.name, err)
	}
	return st.Mode().IsRegular(), nil
}

// WithFile returns a copy of the package in which the file name (a
// slash-separated path relative to the root) holds data, added or replaced.
// The receiver is unchanged.
func (p *Package) WithFile(name string, data []byte) (*Package, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, fmt.Errorf("deploy: invalid package file name %q", name)
	}
	q := &Package{name: p.name, dir: p.dir, open: p.open, extra: maps.Clone(p.extra)}
	if q.extra == nil {
		q.extra = make(map[string][]byte)
	}
	q.extra[name] = bytes.Clone(data)
	return q, nil
}

// WithClientCertificate returns a copy of the package whose
// security/clients.pem holds certPEM: one or more PEM certificates (several
// allow rotation). Vespa Cloud's mTLS endpoints accept clients presenting one
// of them. It fails unless certPEM holds only valid certificates.
func (p *Package) WithClientCertificate(certPEM []byte) (*Package, error) {
	if err := checkCertificates(certPEM); err != nil {
		return nil, err
	}
	return p.WithFile(ClientCertificatePath, certPEM)
}

// HasClientCertificate reports whether the package holds security/clients.pem,
// which Vespa Cloud requires of dev deployments.
func (p *Package) HasClientCertificate() bool {
	ok, err := p.Has(ClientCertificatePath)
	return ok && err == nil
}

// WriteClientCertificate writes certPEM to dir/security/clients.pem, creating
// the directory, so that the application package in dir accepts the matching
// data-plane key. It fails unless certPEM holds only valid certificates.
func WriteClientCertificate(dir string, certPEM []byte) error {
	if err := checkCertificates(certPEM); err != nil {
		return err
	}
	sec := filepath.Join(dir, "security")
	// The package is the user's source tree and the certificate is public:
	// both stay readable like the rest of the tree, for git, Docker builds and
	// Vespa's CLI. The private key is never written here (see [KeyPair.Save]).
	if err := os.MkdirAll(sec, 0o755); err != nil { //nolint:gosec // G301: a source-tree directory holding a public certificate
		return fmt.Errorf("deploy: %w", err)
	}
	if err := os.WriteFile(filepath.Join(sec, "clients.pem"), certPEM, 0o644); err != nil { //nolint:gosec // G306: a public certificate, read by other tools
		return fmt.Errorf("deploy: %w", err)
	}
	return nil
}

// checkCertificates verifies that b is a non-empty sequence of PEM
// certificates and nothing else.
func checkCertificates(b []byte) error {
	n := 0
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if len(bytes.TrimSpace(rest)) != 0 {
				return errors.New("deploy: client certificate: trailing data that is not PEM")
			}
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("deploy: client certificate: PEM block %q is not a CERTIFICATE", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("deploy: client certificate: %w", err)
		}
		n++
	}
	if n == 0 {
		return errors.New("deploy: client certificate: no PEM certificate found")
	}
	return nil
}

// Files returns the slash-separated paths of the files the zip holds, in
// the order it holds them.
func (p *Package) Files() (_ []string, err error) {
	fsys, closeFS, err := p.open()
	if err != nil {
		return nil, err
	}
	defer closeSource(&err, p.name, closeFS)
	names, _, err := p.files(fsys)
	return names, err
}

// files lists the regular files of fsys and the added files, skipping
// version-control and editor files, sorted by path, and maps each symbolic
// link among them to the file it resolves to (see [Package.checkLink]).
func (p *Package) files(fsys fs.FS) ([]string, map[string]string, error) {
	set := make(map[string]bool, len(p.extra))
	links := map[string]string{}
	for name := range p.extra {
		set[name] = true
	}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "." {
			return nil
		}
		if Skipped(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
		case d.Type().IsRegular():
			set[name] = true
		case d.Type()&fs.ModeSymlink != 0:
			// As Vespa's CLI does, a link to a regular file is zipped as that
			// file, under the link's name; unlike it, a link that leads
			// outside the package is refused rather than followed.
			target, err := p.checkLink(fsys, name)
			if err != nil {
				return err
			}
			set[name] = true
			links[name] = target
		}
		return nil
	})
	if errors.Is(err, ErrUnsafeLink) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("deploy: application package %s: %w", p.name, err)
	}
	return slices.Sorted(maps.Keys(set)), links, nil
}

// WriteZip writes the package to w as a zip archive: entries sorted by path,
// every one deflated, dated 1980-01-01 and with mode 0644, so that the same
// files always give the same bytes. It streams: no file is held in memory
// whole.
func (p *Package) WriteZip(w io.Writer) (err error) {
	fsys, closeFS, err := p.open()
	if err != nil {
		return err
	}
	defer closeSource(&err, p.name, closeFS)
	names, links, err := p.files(fsys)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, name := range names {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime}
		h.SetMode(zipMode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("deploy: zipping %s: %w", name, err)
		}
		if data, ok := p.extra[name]; ok {
			_, err = fw.Write(data)
		} else if target, ok := links[name]; ok {
			err = copyFile(fw, fsys, target)
		} else {
			err = copyFile(fw, fsys, name)
		}
		if err != nil {
			return fmt.Errorf("deploy: zipping %s: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("deploy: zipping: %w", err)
	}
	return nil
}

// copyFile copies the file name of fsys to w.
func copyFile(w io.Writer, fsys fs.FS, name string) (err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer closeSource(&err, name, f.Close)
	_, err = io.Copy(w, f)
	return err
}

// closeSource closes something the package only read (a zip file, a file of
// the tree) and sets *errp to the failure, unless an earlier error is there:
// what was read was read whole, so a failed close only matters when
// nothing else went wrong.
func closeSource(errp *error, name string, closeFn func() error) {
	if err := closeFn(); err != nil && *errp == nil {
		*errp = fmt.Errorf("deploy: closing %s: %w", name, err)
	}
}

// Reader returns the zipped package as a stream, written by a goroutine
// through an [io.Pipe] while it is read. Close it to stop that goroutine;
// Close waits for it to end. A zipping error is returned by Read.
func (p *Package) Reader() io.ReadCloser { return ctlplane.NewPipe(p.WriteZip) }

// skippedDirs are directories of version-control systems, IDEs and Vespa's
// own tools (".vespa" may hold data-plane private keys) that are never zipped.
var skippedDirs = []string{".git", ".svn", ".hg", ".bzr", "CVS", "_darcs", ".idea", ".vscode", ".vespa"}

// skippedFiles are files of version-control systems, editors and desktops
// that are never zipped.
var skippedFiles = []string{".git", ".DS_Store", "Thumbs.db", "desktop.ini", ".gitignore", ".gitattributes",
	".gitmodules", ".hgignore", ".cvsignore"}

// Skipped reports whether a file or directory with this base name is left out
// of application packages: version-control directories (.git, .svn, .hg, .bzr,
// CVS, _darcs), IDE settings (.idea, .vscode), Vespa's own .vespa directory,
// desktop files (.DS_Store, Thumbs.db, desktop.ini), VCS ignore files and
// .git files (of worktrees and submodules), editor
// backups and swap files (*~, *.swp, *.swo, .#*, #*#).
func Skipped(name string, isDir bool) bool {
	if isDir {
		return slices.Contains(skippedDirs, name)
	}
	if slices.Contains(skippedFiles, name) {
		return true
	}
	return strings.HasSuffix(name, "~") || strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swo") ||
		strings.HasPrefix(name, ".#") || (len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"))
}
