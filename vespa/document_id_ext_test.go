package vespa_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

func TestParseDocumentID_Valid(t *testing.T) {
	tests := []struct {
		in   string
		want vespa.DocumentID
		text string // canonical form; "" means the input
	}{
		{"id:ns:type::foo", vespa.DocumentID{Namespace: "ns", DocType: "type", UserSpecific: "foo"}, ""},
		{"id:space:music:n=1:two", vespa.DocumentID{Namespace: "space", DocType: "music", Number: 1, HasNumber: true, UserSpecific: "two"}, ""},
		{"id:space:music:g=a:three", vespa.DocumentID{Namespace: "space", DocType: "music", Group: "a", UserSpecific: "three"}, ""},
		{"id:ns:type::user::specific", vespa.DocumentID{Namespace: "ns", DocType: "type", UserSpecific: "user::specific"}, ""},
		{"id:ns:type:::", vespa.DocumentID{Namespace: "ns", DocType: "type", UserSpecific: ":"}, ""},
		{"id:ns:type:n=0123:foo", vespa.DocumentID{Namespace: "ns", DocType: "type", Number: 123, HasNumber: true, UserSpecific: "foo"}, "id:ns:type:n=123:foo"},
		{"id:ns:type:n=+5:foo", vespa.DocumentID{Namespace: "ns", DocType: "type", Number: 5, HasNumber: true, UserSpecific: "foo"}, "id:ns:type:n=5:foo"},
		{"id:ns:type:,:foo", vespa.DocumentID{Namespace: "ns", DocType: "type", UserSpecific: "foo"}, "id:ns:type::foo"},
		{"id:ns:type:g=a=b:x/y", vespa.DocumentID{Namespace: "ns", DocType: "type", Group: "a=b", UserSpecific: "x/y"}, ""},
		{"id:ns:type::a\tb 😀 +%?#", vespa.DocumentID{Namespace: "ns", DocType: "type", UserSpecific: "a\tb 😀 +%?#"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := vespa.ParseDocumentID(tt.in)
			if err != nil {
				t.Fatalf("ParseDocumentID: %v", err)
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			text := tt.text
			if text == "" {
				text = tt.in
			}
			if got.String() != text {
				t.Errorf("String() = %q, want %q", got.String(), text)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestParseDocumentID_Invalid(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "scheme missing"},
		{"doc:ns:type::foo", "unknown scheme"},
		{"id:namespace:type", "document type missing"},
		{"id::type::foo", "namespace must not be empty"},
		{"id:ns", "namespace missing"},
		{"id:ns::user", "key/value section missing"},
		{"id:namespace:type:n=:foo", "n= is empty"},
		{"id:namespace:type:g=:foo", "g= is empty"},
		{"id:ns:type:n=foo:user", `"foo" is not a 64-bit`},
		{"id:ns:type:n=9223372036854775808:foo", "not a 64-bit"},
		{"id:ns:type:g=a,b:foo", `illegal key/value pair "b"`},
		{"id:ns:type:n=1,g=a:foo", "exclusive"},
		{"id:ns:type:x=1:foo", `illegal key "x"`},
		{"id:ns:type::a\x07b", "illegal code point 0x7"},
		{"id:ns:type::\ufffe", "illegal code point 0xFFFE"},
		{"id:ns:type::\U0001FFFF", "illegal code point 0x1FFFF"},
		{"id:ns:type::\ufdd0", "illegal code point 0xFDD0"},
		{"id:ns:type::\xff", "not valid UTF-8"},
		{"id:ns:type::", "user-specified part is empty"},
		{"id:ns:::bar", "document type is empty"},
		{"id:ns:type::.", "cannot be a /document/v1 path segment"},
		{"id:ns:type:n=-1:foo", "n=-1 is negative"},
		{"id:ns:type::" + strings.Repeat("x", 65525), "longer than the maximum of 65536"},
		{"id:" + strings.Repeat("n", 65280) + ":type::x", "the part before the user-specified part is 65289 long"},
	}
	for _, tt := range tests {
		name := tt.in
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			_, err := vespa.ParseDocumentID(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, vespa.ErrInvalidDocumentID) {
				t.Errorf("errors.Is(err, ErrInvalidDocumentID) = false for %v", err)
			}
			var ide *vespa.DocumentIDError
			if !errors.As(err, &ide) || ide.ID != tt.in {
				t.Errorf("error %v does not carry the input as ID", err)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not say %q", err, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), "vespa: invalid document ID ") {
				t.Errorf("error %q lacks the prefix", err)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error is %d bytes long; long IDs must be shortened", len(err.Error()))
			}
		})
	}
}

func TestDocumentID_Path(t *testing.T) {
	tests := []struct{ id, path string }{
		{"id:ns:type::foo", "/document/v1/ns/type/docid/foo"},
		{"id:space:music:n=1:two", "/document/v1/space/music/number/1/two"},
		{"id:ns:type:n=9223372036854775807:two", "/document/v1/ns/type/number/9223372036854775807/two"},
		{"id:test:mail:g=b@hotmail.com:1", "/document/v1/test/mail/group/b%40hotmail.com/1"},
		{"id:ns:type::a+b", "/document/v1/ns/type/docid/a%2Bb"},
		{"id:ns:type::a/b c?d#e%f", "/document/v1/ns/type/docid/a%2Fb%20c%3Fd%23e%25f"},
		{"id:ns:type::æøå", "/document/v1/ns/type/docid/%C3%A6%C3%B8%C3%A5"},
		{"id:ns:type::a:b", "/document/v1/ns/type/docid/a%3Ab"},
		{"id:ns:type::a//b", "/document/v1/ns/type/docid/a%2F%2Fb"},
		{"id:ns:type::..x", "/document/v1/ns/type/docid/..x"},
	}
	for _, tt := range tests {
		got := vespa.MustParseDocumentID(tt.id).Path()
		if got != tt.path {
			t.Errorf("Path(%s) = %s, want %s", tt.id, got, tt.path)
		}
	}
}

func TestDocumentID_Validate(t *testing.T) {
	bad := []vespa.DocumentID{
		{},
		{Namespace: "ns", DocType: "t"},
		{Namespace: "n:s", DocType: "t", UserSpecific: "x"},
		{Namespace: "ns", DocType: "t:", UserSpecific: "x"},
		{Namespace: "ns", DocType: "t", Group: "a:b", UserSpecific: "x"},
		{Namespace: "ns", DocType: "t", Group: "a,b", UserSpecific: "x"},
		{Namespace: "ns", DocType: "t", Group: "g", HasNumber: true, UserSpecific: "x"},
		{Namespace: "ns", DocType: "t", UserSpecific: ".."},
		{Namespace: "ns", DocType: "t", UserSpecific: "a\x00"},
	}
	for _, id := range bad {
		if err := id.Validate(); !errors.Is(err, vespa.ErrInvalidDocumentID) {
			t.Errorf("Validate(%+v) = %v, want an invalid-ID error", id, err)
		}
	}
	good, err := vespa.NewDocumentID("ns", "t", "a:b/c")
	if err != nil || good.String() != "id:ns:t::a:b/c" {
		t.Errorf("NewDocumentID = %v, %v", good, err)
	}
}

func TestEscapePathSegment(t *testing.T) {
	for _, s := range []string{"", "plain-._~", "a+b", "a b", "a/b", "%", "?#", "æ", "\t", ":@!$&'()*,;="} {
		e := vespa.EscapePathSegment(s)
		if strings.ContainsAny(e, "+/ ?#:@") {
			t.Errorf("EscapePathSegment(%q) = %q keeps a reserved character", s, e)
		}
		back, err := url.QueryUnescape(e) // form decoding, as Vespa does
		if err != nil || back != s {
			t.Errorf("form-decoding %q = %q, %v; want %q", e, back, err, s)
		}
	}
}
