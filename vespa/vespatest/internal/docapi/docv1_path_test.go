package docapi

import (
	"testing"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
)

func TestParseDocPath_mapsToIDs(t *testing.T) {
	cases := map[string]string{
		"/document/v1/ns/music/docid/a%2Fb":       "id:ns:music::a/b",
		"/document/v1/ns/music/docid/a/b/c":       "id:ns:music::a/b/c",
		"/document/v1/ns/music/docid/a+b":         "id:ns:music::a b",
		"/document/v1/ns/music/docid/a%2Bb":       "id:ns:music::a+b",
		"/document/v1/ns/music/number/0123/x":     "id:ns:music:n=123:x",
		"/document/v1/ns/music/group/a%3Ab/x":     "id:ns:music:g=a:b:x",
		"/document/v1/ns/music/group/b@hotmail/1": "id:ns:music:g=b@hotmail:1",
	}
	for path, want := range cases {
		p, err := parseDocPath(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		id, err := p.documentID()
		if err != nil || id.Full != want {
			t.Errorf("%s -> %q, %v; want %q", path, id.Full, err, want)
		}
	}
	for _, bad := range []string{"/document/v1/ns/music/docid/a//b", "/document/v1/ns/music/docid/%2E%2E", "/document/v1/ns/music/docid/%zz"} {
		if _, err := parseDocPath(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func FuzzParseDocPath(f *testing.F) {
	for _, s := range []string{"/document/v1/ns/t/docid/x", "/document/v1/ns/t/number/12/x%2F", "/document/v1/ns/t/group/g/x", "/document/v1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseDocPath(s)
		if err != nil || !p.route.isDocument() {
			return
		}
		id, err := p.documentID()
		if err != nil {
			return
		}
		again, err := docid.Parse(id.Full)
		if err != nil || again.Full != id.Full {
			t.Fatalf("%q: id %q does not round-trip: %v", s, id.Full, err)
		}
	})
}
