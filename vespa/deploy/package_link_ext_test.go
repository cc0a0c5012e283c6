package deploy_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa/deploy"
)

// linkTree makes a package directory and, beside it, a "home" directory
// holding a secret, as ~/.ssh would.
func linkTree(t *testing.T) (dir, secret string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "app")
	writeTree(t, dir, map[string]string{"services.xml": "<services version='1.0'/>", "schemas/music.sd": "schema music {}"},
		[]string{"services.xml", "schemas/music.sd"})
	secret = filepath.Join(base, "home", ".ssh", "id_ed25519")
	writeTree(t, filepath.Join(base, "home"), map[string]string{".ssh/id_ed25519": "PRIVATE KEY MATERIAL"}, []string{".ssh/id_ed25519"})
	return dir, secret
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

func zipContent(t *testing.T, p *deploy.Package) map[string]string {
	t.Helper()
	data := zipBytes(t, p)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		m[f.Name] = string(b)
	}
	return m
}

func TestPackage_LinksOutsideAreRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		link   string // relative to the package
		target func(dir, secret string) string
	}{
		{"absolute, to a file elsewhere", "schemas/key.sd", func(_, secret string) string { return secret }},
		{"relative, climbing out", "schemas/key.sd", func(_, _ string) string { return "../../home/.ssh/id_ed25519" }},
		{"to a directory elsewhere", "ssh", func(_, secret string) string { return filepath.Dir(secret) }},
		{"through a link inside that leads out", "schemas/key.sd", func(dir, secret string) string {
			symlink(t, filepath.Dir(secret), filepath.Join(dir, "hop"))
			return "../hop/id_ed25519"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, secret := linkTree(t)
			symlink(t, c.target(dir, secret), filepath.Join(dir, filepath.FromSlash(c.link)))
			_, err := deploy.NewPackage(dir)
			if !errors.Is(err, deploy.ErrUnsafeLink) {
				t.Fatalf("NewPackage: %v, want ErrUnsafeLink", err)
			}
			if !strings.Contains(err.Error(), c.link) && !strings.Contains(err.Error(), "hop") {
				t.Errorf("the error %q does not name the link %s", err, c.link)
			}
		})
	}
}

func TestPackage_LinksInsideAreZippedAsTheirFiles(t *testing.T) {
	dir, _ := linkTree(t)
	symlink(t, "music.sd", filepath.Join(dir, "schemas", "copy.sd"))                        // relative
	symlink(t, filepath.Join(dir, "services.xml"), filepath.Join(dir, "services-link.xml")) // absolute, inside
	symlink(t, "../schemas/copy.sd", filepath.Join(dir, "more", "chain.sd"))                // a chain
	p := mustPackage(t, dir)
	got := zipContent(t, p)
	for name, want := range map[string]string{
		"schemas/copy.sd": "schema music {}", "services-link.xml": "<services version='1.0'/>", "more/chain.sd": "schema music {}",
	} {
		if got[name] != want {
			t.Errorf("%s zipped as %q, want the content of the file it links to, %q", name, got[name], want)
		}
	}
	if len(got) != 5 {
		t.Errorf("zip holds %d files: %v", len(got), got)
	}
}

func TestPackage_LinkToADirectoryInsideIsRefused(t *testing.T) {
	dir, _ := linkTree(t)
	symlink(t, "schemas", filepath.Join(dir, "schemas2"))
	if _, err := deploy.NewPackage(dir); !errors.Is(err, deploy.ErrUnsafeLink) || !strings.Contains(err.Error(), "schemas2") {
		t.Errorf("NewPackage: %v, want ErrUnsafeLink naming schemas2", err)
	}
}

// TestDeploy_OutsideLinkRefusedBeforeSending makes the link after the
// package was made (the tree is read again at each deploy): nothing may
// reach the server.
func TestDeploy_OutsideLinkRefusedBeforeSending(t *testing.T) {
	var requests atomic.Int32
	cs := serveConfigServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"session-id":"2","activated":true}`)
	}))
	dir, secret := linkTree(t)
	p := mustPackage(t, dir)
	symlink(t, secret, filepath.Join(dir, "schemas", "key.sd"))
	_, err := cs.DeployAndWait(t.Context(), p, deploy.Params{})
	if !errors.Is(err, deploy.ErrUnsafeLink) || !strings.Contains(err.Error(), "schemas/key.sd") {
		t.Errorf("Deploy: %v, want ErrUnsafeLink naming schemas/key.sd", err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server, want none", n)
	}
	if strings.Contains(err.Error(), "PRIVATE KEY MATERIAL") {
		t.Error("the error shows the secret's content")
	}
}

func TestPackage_ServicesXMLLinkedFromOutsideIsNamed(t *testing.T) {
	dir, secret := linkTree(t)
	if err := os.Remove(filepath.Join(dir, "services.xml")); err != nil {
		t.Fatal(err)
	}
	symlink(t, secret, filepath.Join(dir, "services.xml"))
	if _, err := deploy.NewPackage(dir); !errors.Is(err, deploy.ErrUnsafeLink) || !strings.Contains(err.Error(), "services.xml") {
		t.Errorf("NewPackage: %v, want ErrUnsafeLink naming services.xml", err)
	}
}
