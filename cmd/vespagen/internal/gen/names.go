package gen

import (
	"fmt"
	"go/token"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// initialisms are the parts of a Vespa name written in capitals in Go
// (user_id is UserID), as Go's own names write them.
var initialisms = map[string]bool{
	"API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "HTML": true, "HTTP": true,
	"HTTPS": true, "ID": true, "IP": true, "JSON": true, "SQL": true, "TTL": true, "UI": true,
	"URI": true, "URL": true, "UTF8": true, "UUID": true, "XML": true,
}

// goName returns the exported Go identifier of a Vespa name: its parts
// (split at '_', '-', '.' and anything else that is not a letter or digit)
// capitalised and joined, initialisms in capitals: "user_id" is UserID,
// "near-dup" NearDup, "type" Type (so no Go keyword can come out). A name
// whose first part starts with a digit, or that has no letter at all, gets
// an X in front.
func goName(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if up := strings.ToUpper(part); initialisms[up] {
			b.WriteString(up)
			continue
		} else if up[len(up)-1] == 'S' && initialisms[up[:len(up)-1]] {
			b.WriteString(up[:len(up)-1] + "s") // ids is IDs
			continue
		}
		r, n := utf8.DecodeRuneInString(part)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(part[n:])
	}
	s := b.String()
	if r, _ := utf8.DecodeRuneInString(s); !unicode.IsLetter(r) {
		s = "X" + s
	}
	return s
}

// origin says where a Go name comes from, for collision errors:
// `field "user_id" of schema song (song.sd:5)`.
type origin struct {
	what string // `field "user_id" of schema song`
	file string
	line int
}

func (o origin) String() string {
	return fmt.Sprintf("%s (%s:%d)", o.what, filepath.Base(o.file), o.line)
}

// scope is a set of Go names in one namespace (the package, or the fields
// and methods of one type), with where each came from.
type scope struct {
	of    string // "package", "struct Song"
	names map[string]origin
}

func newScope(of string, reserved ...string) *scope {
	s := &scope{of: of, names: map[string]origin{}}
	for _, r := range reserved {
		s.names[r] = origin{what: "the generated method " + r}
	}
	return s
}

// claim takes name for o, or fails naming both Vespa names that became it.
func (s *scope) claim(name string, o origin) error {
	if prev, dup := s.names[name]; dup {
		where := prev.what
		if prev.file != "" {
			where = prev.String()
		}
		return fmt.Errorf("vespagen: %s:%d: %s is %s in Go (in %s), as is %s; rename one",
			o.file, o.line, o.what, name, s.of, where)
	}
	if !token.IsIdentifier(name) {
		return fmt.Errorf("vespagen: %s:%d: %s: %q is not a Go identifier", o.file, o.line, o.what, name)
	}
	s.names[name] = o
	return nil
}
