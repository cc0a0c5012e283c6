package vespa

import (
	"errors"
	"net/http"
	"reflect"
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
	f.Fuzz(func(t *testing.T, body string) {
		for _, status := range []int{200, 500} {
			var p visitPage
			err := decodeVisitPage(&p, status, http.Header{}, []byte(body))
			if err != nil {
				var ve *Error
				if status != 200 || !errors.As(err, &ve) || ve.Status != 200 {
					t.Fatalf("status %d: error %v", status, err)
				}
				continue
			}
			for _, d := range p.docs {
				if d.ID == "" {
					t.Fatalf("a document without an ID from %q", body)
				}
			}
		}
	})
}
