package deploy_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/deploy"
)

// writeTree creates files (slash paths) under dir, in the given order.
func writeTree(t *testing.T, dir string, files map[string]string, order []string) {
	t.Helper()
	for _, name := range order {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[name]), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

var appFiles = map[string]string{
	"services.xml":                      "<services version='1.0'/>",
	"schemas/music.sd":                  "schema music { document music {} }",
	"schemas/a-b/x.txt":                 "dash sorts before slash",
	"search/query-profiles/default.xml": "<query-profile id='default'/>",
	// Left out of the zip:
	".git/config":           "[core]",
	".git/objects/ab/cd":    "blob",
	".svn/entries":          "x",
	".idea/workspace.xml":   "x",
	".vscode/settings.json": "{}",
	".vespa/config.yaml":    "target: cloud",
	".DS_Store":             "x",
	"schemas/music.sd~":     "backup",
	"schemas/.music.sd.swp": "swap",
	"#services.xml#":        "emacs",
	".#services.xml":        "emacs lock",
}

var wantFiles = []string{"schemas/a-b/x.txt", "schemas/music.sd", "search/query-profiles/default.xml", "services.xml"}

func zipBytes(t *testing.T, p *deploy.Package) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteZip(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zipNames(t *testing.T, data []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Mode().Perm() != 0o644 || !f.Modified.Equal(f.Modified.UTC()) || f.Modified.Year() != 1980 {
			t.Errorf("%s: mode %v, modified %v; want 0644 and 1980", f.Name, f.Mode(), f.Modified)
		}
	}
	return names
}

func TestPackage_DeterministicAndSkipsVCSAndEditorFiles(t *testing.T) {
	keys := make([]string, 0, len(appFiles))
	for k := range appFiles {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dirA, dirB := t.TempDir(), t.TempDir()
	writeTree(t, dirA, appFiles, keys)
	slices.Reverse(keys) // another creation order, other inode order
	writeTree(t, dirB, appFiles, keys)
	// Different modification times and modes must not matter either.
	if err := os.Chmod(filepath.Join(dirB, "services.xml"), 0o755); err != nil {
		t.Fatal(err)
	}

	pa := mustPackage(t, dirA)
	pb := mustPackage(t, dirB)
	a1, a2, b := zipBytes(t, pa), zipBytes(t, pa), zipBytes(t, pb)
	if !bytes.Equal(a1, a2) {
		t.Error("zipping the same directory twice gave different bytes")
	}
	if !bytes.Equal(a1, b) {
		t.Error("zipping equal directories created in another order gave different bytes")
	}
	if got := zipNames(t, a1); !slices.Equal(got, wantFiles) {
		t.Errorf("zip entries = %q, want %q", got, wantFiles)
	}
	files, err := pa.Files()
	if err != nil || !slices.Equal(files, wantFiles) {
		t.Errorf("Files() = %q, %v; want %q", files, err, wantFiles)
	}

	// The same tree as an fs.FS gives the same bytes.
	mfs := fstest.MapFS{}
	for name, data := range appFiles {
		mfs[name] = &fstest.MapFile{Data: []byte(data), Mode: 0o600}
	}
	pf, err := deploy.NewPackageFS(mfs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(zipBytes(t, pf), a1) {
		t.Error("zipping the tree as an fs.FS gave different bytes than as a directory")
	}

	// A zip file as the source gives the same bytes again.
	zipPath := filepath.Join(t.TempDir(), "application.zip")
	if err := os.WriteFile(zipPath, a1, 0o600); err != nil {
		t.Fatal(err)
	}
	pz := mustPackage(t, zipPath)
	if !bytes.Equal(zipBytes(t, pz), a1) {
		t.Error("re-zipping a zip package changed its bytes")
	}
}

func TestPackage_ReaderStreamsTheSameBytes(t *testing.T) {
	p, err := deploy.NewPackageFS(fstest.MapFS{"services.xml": {Data: []byte("<services/>")}, "big.bin": {Data: bytes.Repeat([]byte("x"), 1<<20)}})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Reader()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, zipBytes(t, p)) {
		t.Error("Reader and WriteZip disagree")
	}
	// Closing before the end stops the writer (Close waits for it).
	r = p.Reader()
	if _, err := r.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewPackage_MissingServicesXML(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"schemas/music.sd": "x"}, []string{"schemas/music.sd"})
	_, err := deploy.NewPackage(dir)
	if !errors.Is(err, deploy.ErrMissingServicesXML) {
		t.Fatalf("NewPackage without services.xml: %v, want ErrMissingServicesXML", err)
	}
	if _, err := deploy.NewPackageFS(fstest.MapFS{"app/services.xml": {}}); !errors.Is(err, deploy.ErrMissingServicesXML) {
		t.Errorf("services.xml in a subdirectory: %v, want ErrMissingServicesXML", err)
	}
	if _, err := deploy.NewPackage(filepath.Join(dir, "nope")); err == nil {
		t.Error("NewPackage of a missing path succeeded")
	}
}

func TestPackage_WithClientCertificate(t *testing.T) {
	p, err := deploy.NewPackageFS(fstest.MapFS{"services.xml": {Data: []byte("<services/>")}})
	if err != nil {
		t.Fatal(err)
	}
	if p.HasClientCertificate() {
		t.Fatal("a package without security/clients.pem reports one")
	}
	cert, key := testutil.SelfSignedPEM(t, time.Now().Add(time.Hour))
	q, err := p.WithClientCertificate(cert)
	if err != nil {
		t.Fatal(err)
	}
	if !q.HasClientCertificate() || p.HasClientCertificate() {
		t.Error("WithClientCertificate did not add to the copy only")
	}
	data := zipBytes(t, q)
	zr, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	f, err := zr.Open(deploy.ClientCertificatePath)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	if !bytes.Equal(got, cert) {
		t.Error("security/clients.pem does not hold the certificate")
	}
	for _, bad := range [][]byte{nil, []byte("not pem"), key, append(bytes.Clone(cert), "junk"...)} {
		if _, err := p.WithClientCertificate(bad); err == nil {
			t.Errorf("WithClientCertificate(%.20q) succeeded", bad)
		}
	}
	dir := t.TempDir()
	if err := deploy.WriteClientCertificate(dir, cert); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "security", "clients.pem")); err != nil || !bytes.Equal(b, cert) {
		t.Errorf("WriteClientCertificate wrote %q, %v", b, err)
	}
	if _, err := p.WithFile("../escape", nil); err == nil {
		t.Error("WithFile accepted a path leaving the package")
	}
}

func TestSkipped(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  bool
		skip bool
	}{
		{".git", true, true}, {".hg", true, true}, {".svn", true, true}, {".idea", true, true}, {".vscode", true, true},
		{".vespa", true, true}, {"schemas", true, false}, {".DS_Store", false, true}, {"a.sd~", false, true},
		{".a.swp", false, true}, {"#a#", false, true}, {".#a", false, true}, {"services.xml", false, false},
		{"#", false, false}, {".git", false, true}, {".gitkeep", false, false},
	} {
		if got := deploy.Skipped(c.name, c.dir); got != c.skip {
			t.Errorf("Skipped(%q, dir=%v) = %v, want %v", c.name, c.dir, got, c.skip)
		}
	}
}
