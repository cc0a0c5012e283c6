package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
)

var (
	goBlock  = regexp.MustCompile("(?s)```go\n(.*?)```")
	fileRefs = regexp.MustCompile(`in\s+\[?([\w/]+_test\.go)`)
)

// TestREADME_SnippetsAreExcerptsOfExamples checks each ```go block of the
// README against the _test.go file named before it ("… in [path](path)"):
// its lines, with indentation ignored, must appear there in a row.
func TestREADME_SnippetsAreExcerptsOfExamples(t *testing.T) {
	root := filepath.Join("..", "..")
	readme := testutil.ReadFile(t, filepath.Join(root, "README.md"))
	blocks := goBlock.FindAllSubmatchIndex(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go snippets")
	}
	for _, b := range blocks {
		refs := fileRefs.FindAllSubmatch(readme[:b[0]], -1)
		snippet := trimmed(string(readme[b[2]:b[3]]))
		if len(refs) == 0 {
			t.Errorf("snippet %q names no Example file before it", snippet[0])
			continue
		}
		path := string(refs[len(refs)-1][1])
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Errorf("snippet %q: %v", snippet[0], err)
			continue
		}
		if !containsRun(trimmed(string(src)), snippet) {
			t.Errorf("the snippet starting %q is not an excerpt of %s: copy it from the Example again", snippet[0], path)
		}
	}
}

// trimmed splits s into lines without their leading and trailing space.
func trimmed(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// containsRun reports whether run stands in lines as consecutive lines.
func containsRun(lines, run []string) bool {
	for i := 0; i+len(run) <= len(lines); i++ {
		match := true
		for j := range run {
			if lines[i+j] != run[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
