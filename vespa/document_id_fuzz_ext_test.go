package vespa_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// FuzzParseDocumentID checks that parsing never panics, and that a valid ID
// prints as text that parses back to it, and maps to a path from which the
// server's decoding gives back the same ID.
func FuzzParseDocumentID(f *testing.F) {
	for _, s := range []string{
		"id:ns:type::foo", "id:space:music:n=1:two", "id:space:music:g=a:three", "id:ns:type::user::specific",
		"id:ns:type:::", "id:ns:type:n=0123:foo", "id:ns:type:,:foo", "id:ns:type::a+b/c d%?#",
		"id:ns:type::æøå😀", "id:ns:type:g=a=b:x", "id:ns:type:n=-1:foo", "doc:ns:type::x", "id:ns::x", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := vespa.ParseDocumentID(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "vespa: invalid document ID") {
				t.Fatalf("error without the prefix: %v", err)
			}
			return
		}
		text := id.String()
		back, err := vespa.ParseDocumentID(text)
		if err != nil || back != id {
			t.Fatalf("%q: String() = %q parses to %+v, %v", s, text, back, err)
		}
		if err := id.Validate(); err != nil {
			t.Fatalf("%q parsed but does not validate: %v", s, err)
		}
		if got, ok := decodeServerID(id.Path()); !ok || got != text {
			t.Fatalf("%q: path %s decodes to %q (ok=%v)", s, id.Path(), got, ok)
		}
	})
}

// FuzzDocumentIDParts builds IDs from parts: every ID that validates has
// path segments that decode, with both url.PathUnescape and form decoding,
// to exactly its parts.
func FuzzDocumentIDParts(f *testing.F) {
	f.Add("ns", "music", "a+b/c", "", int64(0), false)
	f.Add("n s", "t", "%2F", "g:r", int64(0), false)
	f.Add("ns", "t", "x", "grp", int64(0), false)
	f.Add("ns", "t", "?#", "", int64(42), true)
	f.Fuzz(func(t *testing.T, ns, typ, user, group string, n int64, hasN bool) {
		id := vespa.DocumentID{Namespace: ns, DocType: typ, UserSpecific: user, Group: group, Number: n, HasNumber: hasN}
		if id.Validate() != nil {
			return
		}
		segs := strings.Split(strings.TrimPrefix(id.Path(), "/document/v1/"), "/")
		want := []string{ns, typ}
		switch {
		case hasN:
			want = append(want, "number", "") // the number is checked by the round trip below
		case group != "":
			want = append(want, "group", group)
		default:
			want = append(want, "docid")
		}
		want = append(want, user)
		if len(segs) != len(want) {
			t.Fatalf("path %s has %d segments, want %d", id.Path(), len(segs), len(want))
		}
		for i, seg := range segs {
			if want[i] == "" && hasN {
				continue
			}
			p, err1 := url.PathUnescape(seg)
			q, err2 := url.QueryUnescape(seg)
			if err1 != nil || err2 != nil || p != want[i] || q != want[i] {
				t.Fatalf("segment %q decodes to %q / %q, want %q", seg, p, q, want[i])
			}
		}
		back, err := vespa.ParseDocumentID(id.String())
		if err != nil || back != id {
			t.Fatalf("%+v: String() %q parses to %+v, %v", id, id.String(), back, err)
		}
	})
}

// FuzzEscapePathSegment checks that an escaped segment has no reserved
// character and decodes back to its input both ways.
func FuzzEscapePathSegment(f *testing.F) {
	for _, s := range []string{"", "a+b", "a b", "a/b", "%", "%2B", "?#", "æ", "\x00\xff", "~._-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := vespa.EscapePathSegment(s)
		if strings.ContainsAny(e, "/+?# ") {
			t.Fatalf("%q escapes to %q", s, e)
		}
		p, err1 := url.PathUnescape(e)
		q, err2 := url.QueryUnescape(e)
		if err1 != nil || err2 != nil || p != s || q != s {
			t.Fatalf("%q escapes to %q, which decodes to %q / %q", s, e, p, q)
		}
	})
}

// decodeServerID is serverIDFromPath without a testing.T.
func decodeServerID(rawPath string) (string, bool) {
	segs := strings.Split(strings.TrimPrefix(rawPath, "/"), "/")
	for i, s := range segs {
		d, err := url.QueryUnescape(s)
		if err != nil || d == "" || d == "." || d == ".." {
			return "", false
		}
		segs[i] = d
	}
	if len(segs) < 6 || segs[0] != "document" || segs[1] != "v1" {
		return "", false
	}
	kv, rest := "", segs[5:]
	switch segs[4] {
	case "docid":
	case "number":
		kv, rest = "n="+segs[5], segs[6:]
	case "group":
		kv, rest = "g="+segs[5], segs[6:]
	default:
		return "", false
	}
	if len(rest) == 0 {
		return "", false
	}
	return "id:" + segs[2] + ":" + segs[3] + ":" + kv + ":" + strings.Join(rest, "/"), true
}
