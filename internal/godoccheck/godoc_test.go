package godoccheck

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// modules are the folders, from the repository's root, whose public
// packages are checked: the SDK and its testcontainers module.
var modules = []string{".", "vespacontainer"}

// listed is what go list says of one package.
type listed struct {
	ImportPath string
	Imports    []string
}

// TestGoDocNamesNoInternalPackage runs go doc -all on each public package
// (no /internal/ in its path) and fails where the text names an exported
// identifier of an internal package it imports, as "wire.Error" or
// "fault.Rule": an alias, a signature or a constant's value that sends the
// reader to source they cannot import.
func TestGoDocNamesNoInternalPackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, mod := range modules {
		dir := filepath.Join(root, mod)
		out, err := exec.CommandContext(t.Context(), "go", "-C", dir, "list", "-json=ImportPath,Imports", "./...").Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", mod, err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var p listed
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(p.ImportPath+"/", "/internal/") {
				continue
			}
			checked++
			checkPackage(t, dir, p)
		}
	}
	if checked < 10 {
		t.Errorf("only %d public packages checked: the listing is wrong", checked)
	}
}

// checkPackage fails t for each internal name in go doc -all of p.
func checkPackage(t *testing.T, dir string, p listed) {
	var names []string
	for _, imp := range p.Imports {
		if strings.Contains(imp, "/internal/") {
			names = append(names, regexp.QuoteMeta(path.Base(imp)))
		}
	}
	if len(names) == 0 {
		return
	}
	doc, err := exec.CommandContext(t.Context(), "go", "-C", dir, "doc", "-all", p.ImportPath).CombinedOutput()
	if err != nil {
		t.Errorf("go doc -all %s: %v\n%s", p.ImportPath, err, doc)
		return
	}
	re := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\.[A-Z]\w*`)
	for i, line := range strings.Split(string(doc), "\n") {
		if m := re.FindString(line); m != "" {
			t.Errorf("go doc %s, line %d, names the internal %s: %s", p.ImportPath, i+1, m, strings.TrimSpace(line))
		}
	}
}
