package schema

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
)

// FuzzParse: any input either parses, into a schema whose types print and
// read back the same, or is refused with an *Error on a line of the input;
// nothing panics.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/schemas/*.sd")
	for _, name := range files {
		b := testutil.ReadFile(f, name)
		f.Add(b)
	}
	f.Add([]byte("schema a {\n document a {\n  field f type tensor(x{}) { indexing: attribute }\n }\n}\n"))
	f.Add([]byte("schema a { document a { field f type map<string,array<int>> { indexing: summary } } }"))
	f.Add([]byte("schema a {\n document a {}\n rank-profile r { inputs { query(q) tensor(x[2]): [1,2] } }\n}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse("f.sd", b)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			lines := 1
			for _, c := range b {
				if c == '\n' {
					lines++
				}
			}
			if e.Line < 1 || e.Line > lines {
				t.Fatalf("error on line %d of %d: %v", e.Line, lines, err)
			}
			return
		}
		for _, fld := range s.Document.Fields {
			again, err := ParseType(fld.Type.String())
			if err != nil || again.String() != fld.Type.String() {
				t.Fatalf("type %s does not read back: %v %v", fld.Type, again, err)
			}
		}
		_, _ = NewApplication(s)
	})
}
