package vespa

import (
	"errors"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// FuzzVisitResumeToken feeds the resume-token decoder arbitrary text: it
// never panics, every error matches ErrInvalidResumeToken, and what it
// accepts encodes back to a token that decodes to the same progress.
func FuzzVisitResumeToken(f *testing.F) {
	p := &visitProgress{fingerprint: 42, slices: 4, states: []sliceState{
		{id: 0, done: true},
		{id: 1, cont: "AAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAJAAAAAAAAAAgAAAAAAAAAAQAAAAAAAAAEAAAAAAAAAAA==", seen: []uint64{1, 2, 3}},
		{id: 3},
	}}
	f.Add(p.encode())
	f.Add("v1.")
	f.Add("v1.e30")
	f.Add(`v2.eyJmIjoxfQ`)
	f.Add("v1.eyJmIjoxLCJuIjoyLCJzIjpbeyJpIjoxLCJrIjoxLCJoIjoiQUFBQUFBQUFBQUU9In1dfQ")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decodeResumeToken(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidResumeToken) {
				t.Fatalf("error %v does not match ErrInvalidResumeToken", err)
			}
			return
		}
		again, err := decodeResumeToken(got.encode())
		if err != nil {
			t.Fatalf("re-encoded token rejected: %v", err)
		}
		if !reflect.DeepEqual(got, again) {
			t.Fatalf("round trip changed the progress: %+v != %+v", got, again)
		}
	})
}

// FuzzVisitPage feeds the page decoder arbitrary bodies under a 200 and a
// 500: it never panics, a 2xx body it cannot read is an *Error, and every
// yielded document has an ID.
func FuzzVisitPage(f *testing.F) {
	f.Add(`{"pathId":"/document/v1/ns/music/docid","documents":[{"id":"id:ns:music::a","fields":{"a":1}},{"remove":"id:ns:music::b"}],"documentCount":2,"continuation":"AAAA"}`)
	f.Add(`{"documents":[],"documentCount":0,"continuation":"x"}`)
	f.Add(`{"pathId":"/","message":"boom"}`)
	f.Add(`<html>502 Bad Gateway</html>`)
	f.Add(``)
	f.Add(`{"documents":[{"id":1}]}`)
	f.Add(`[]`)
	f.Add("{\"put\":\"id:ns:music::a\",\"fields\":{}}\n{\"remove\":\"id:ns:music::b\"}\n{\"continuation\":{\"token\":\"AAAA\",\"percentFinished\":12.5}}\n")
	f.Add("{\"message\":{\"text\":\"boom\",\"severity\":\"error\"}}\n{\"continuation\":{\"percentFinished\":100}}\n")
	jsonl := http.Header{"Content-Type": {"application/jsonl; charset=UTF-8"}}
	f.Fuzz(func(t *testing.T, body string) {
		for _, h := range []http.Header{{}, jsonl} {
			for _, status := range []int{200, 500} {
				p := visitPage{Result: Result{Status: status}}
				err := decodeVisitPage(&p, status, h, []byte(body))
				if err != nil {
					var ve *Error
					if status != 200 || !errors.As(err, &ve) || ve.Status != 200 {
						t.Fatalf("status %d: error %v", status, err)
					}
					continue
				}
				if status == 200 && p.Status != 200 && len(p.docs) > 0 {
					t.Fatalf("a failed page with documents from %q", body)
				}
				for _, d := range p.docs {
					if d.ID == "" {
						t.Fatalf("a document without an ID from %q", body)
					}
				}
			}
		}
	})
}

// The string literals of the selection language as Vespa's two lexers read
// them, with POSIX leftmost-longest matching (in which a negated class does
// not match a newline, hence the explicit \n): the container's JavaCC lexer
// (SelectParser.jj: a quote, then any byte but the quote or a backslash and
// the quote, then the quote) and the content nodes' flex lexer (lexer.ll).
var (
	javaLiterals = regexp.MustCompilePOSIX("'([^']|\n|\\\\')*'|\"([^\"]|\n|\\\\\")*\"")
	cppLiterals  = regexp.MustCompilePOSIX("'(\\\\([\\\\tnfr']|x[0-9a-fA-F][0-9a-fA-F])|[^'\\\\]|\n)*'|\"(\\\\([\\\\tnfr\"]|x[0-9a-fA-F][0-9a-fA-F])|[^\"\\\\]|\n)*\"")
)

// FuzzCheckSelection checks that a selection checkSelection accepts cannot
// leave the parentheses it is wrapped in, as either of Vespa's lexers reads
// it (regexps above, not the code under test): in "(" + sel + ") and
// (id.namespace=='ns')", with string literals taken out, the first
// parenthesis closes exactly at the end of sel, and no quote is left open.
func FuzzCheckSelection(f *testing.F) {
	for _, s := range []string{"true", "true) or (true", "music.title == ')'", `a == "\"" or (b)`, "((a)", `'\'`, `x == 'a\\'`, `'\\' == ') or true or ('`, "()", ""} {
		f.Add(s)
	}
	const suffix = " and (id.namespace=='ns')"
	f.Fuzz(func(t *testing.T, sel string) {
		if checkSelection("Selection", sel) != nil {
			return
		}
		for name, re := range map[string]*regexp.Regexp{"Java": javaLiterals, "C++": cppLiterals} {
			stripped := re.ReplaceAllString("("+sel+")"+suffix, "s")
			if strings.ContainsAny(stripped, `'"`) {
				t.Fatalf("accepted %q, in which %s's lexer leaves a quote open: %s", sel, name, stripped)
			}
			want := " and (id.namespace==s)"
			if !strings.HasSuffix(stripped, want) {
				t.Fatalf("accepted %q, which %s's lexer reads into the namespace part: %s", sel, name, stripped)
			}
			group := strings.TrimSuffix(stripped, want)
			depth := 0
			for i, c := range group {
				switch c {
				case '(':
					depth++
				case ')':
					depth--
				}
				if depth == 0 && i != len(group)-1 {
					t.Fatalf("accepted %q, which as %s's lexer reads it closes its parenthesis at byte %d: %s", sel, name, i, group)
				}
			}
		}
	})
}

func TestCheckSelection(t *testing.T) {
	for sel, ok := range map[string]bool{
		"true":                             true,
		"music.year > 2000 and (a or b)":   true,
		`music.title == ")" or (x)`:        true,
		`music.title =~ "a\\.b"`:           true,
		`music.title == 'it\'s'`:           true,
		`music.title == "\x41"`:            true,
		"true) or (true":                   false,
		"(true":                            false,
		`music.title == "x`:                false,
		`music.title == 'a\\'`:             false, // Java and C++ differ
		`'\\' == ') or true or ('`:         false,
		`music.title == "\q"`:              false,
		"":                                 false,
		"   ":                              false,
		"a\x00":                            false,
		`music.title == "x" or ")" == ")"`: true,
	} {
		if err := checkSelection("Selection", sel); (err == nil) != ok {
			t.Errorf("checkSelection(%q) = %v, want ok=%v", sel, err, ok)
		}
	}
}

func TestCheckNamespace(t *testing.T) {
	for ns, ok := range map[string]bool{"ns": true, "my-ns.1": true, "": true, "a'b": false, `a\`: false, `a"b`: false, "a\nb": false} {
		if err := checkNamespace("Namespace", ns); (err == nil) != ok {
			t.Errorf("checkNamespace(%q) = %v, want ok=%v", ns, err, ok)
		}
	}
}
