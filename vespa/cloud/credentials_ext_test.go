package cloud_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/cloud"
)

func TestKeyPair_SaveModes(t *testing.T) {
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "scoober.albums.default")
	certFile, keyFile, err := kp.Save(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, certFile: 0o644, keyFile: 0o600} {
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		// The umask can only take permissions away.
		if st.Mode()&^want != 0 {
			t.Errorf("%s has mode %v, want at most %v", filepath.Base(file), st.Mode(), want)
		}
	}
	if got, err := os.ReadFile(keyFile); err != nil || string(got) != string(kp.PrivateKeyPEM) {
		t.Errorf("the key file does not hold the key (%v)", err)
	}
}

func TestKeyPair_SaveFailureLeavesNoTemporaryFile(t *testing.T) {
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A directory where the key goes: the rename over it fails.
	if err := os.Mkdir(filepath.Join(dir, cloud.DataPlanePrivateKeyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kp.Save(dir, true); err == nil {
		t.Fatal("Save over a directory succeeded")
	} else if strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Error("the error shows the key")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
