package feedrig_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/feedrig"
)

// The built binary is the feed command: its usage names its flags.
func TestBuildFeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	var stderr bytes.Buffer
	bin, err := feedrig.BuildFeed(t.Context(), t.TempDir(), &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	out, _ := exec.CommandContext(t.Context(), bin, "-h").CombinedOutput()
	if !strings.Contains(string(out), "-endpoint") {
		t.Errorf("%s -h: %q, want the feed command's usage", bin, out)
	}
}
