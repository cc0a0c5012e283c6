package vespa_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// TestVisit_HostileSelectionsCannotWiden tries selections and names built
// to escape the parentheses a visit wraps them in: each is refused before a
// request is sent, or, for a quoted namespace, matches nothing.
func TestVisit_HostileSelectionsCannotWiden(t *testing.T) {
	srv, c := newVisitServer(t)
	visitCorpus(t, srv, "other", 20)
	mine := visitCorpus(t, srv, "mine", 5)
	for _, sel := range []string{
		"true) or (true",
		"true)) or ((true",
		"music.title == 'a') or ('b' == 'b'",
		`music.title == "x`,
		"(true",
		"true)",
		"  ",
		"true\x00",
	} {
		t.Run(fmt.Sprintf("selection %q", sel), func(t *testing.T) {
			for name, req := range map[string]vespa.VisitRequest{
				"typed":        {Namespace: "mine", DocType: "music", Selection: sel},
				"at the root":  {Namespace: "mine", Cluster: "content", Selection: sel},
				"type at root": {DocType: "music", Cluster: "content", Selection: sel},
			} {
				if _, err := c.Visitor(req); err == nil {
					t.Errorf("%s: accepted", name)
				}
			}
			n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: "mine", DocType: "music", Cluster: "content", Selection: sel})
			if err == nil || n != 0 {
				t.Errorf("RemoveWhere: removed %d, err %v; want an error before any request", n, err)
			}
		})
	}
	t.Run("balanced selections with parentheses in strings still work", func(t *testing.T) {
		got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "mine", Cluster: "content", Selection: `music.title != "(" and (music.title != ')' or true)`}))
		checkExactlyOnce(t, got, mine)
	})
	for _, dt := range []string{"music or true", "music)", "music' or '1", "1music", "mu-sic"} {
		t.Run(fmt.Sprintf("document type %q", dt), func(t *testing.T) {
			if _, err := c.Visitor(vespa.VisitRequest{DocType: dt, Cluster: "content"}); err == nil {
				t.Error("Visitor accepted it")
			}
			if _, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: "mine", DocType: dt, Cluster: "content", Selection: "true"}); err == nil {
				t.Error("RemoveWhere accepted it")
			}
		})
	}
	for _, ns := range []string{"x') or ('1' == '1", `x\`, "x' or true or 'y", "a\nb"} {
		t.Run(fmt.Sprintf("namespace %q", ns), func(t *testing.T) {
			for name, req := range map[string]vespa.VisitRequest{
				"typed":       {Namespace: ns, DocType: "music"},
				"at the root": {Namespace: ns, Cluster: "content"},
			} {
				if _, err := c.Visitor(req); err == nil {
					t.Errorf("%s: accepted", name)
				}
			}
			if _, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: ns, DocType: "music", Cluster: "content", Selection: "true"}); err == nil {
				t.Error("RemoveWhere accepted it")
			}
		})
	}
	if got := srv.DocumentCount(); got != 25 {
		t.Errorf("%d documents left, want all 25", got)
	}
}

// loopServer answers every visit page with docs documents named after the
// continuation sent, and the continuation next gives for it, forever; it
// counts the requests.
func loopServer(t *testing.T, docs int, next func(sent string) string) (*atomic.Int64, *vespa.Client) {
	t.Helper()
	var requests atomic.Int64
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 10000 {
			http.Error(w, "enough", http.StatusGone) // a bound, should the guard fail
			return
		}
		var b strings.Builder
		b.WriteString(`{"pathId":"/document/v1/ns/music/docid","documents":[`)
		for i := range docs {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"id:ns:music::from-%s-%d","fields":{}}`, r.URL.Query().Get("continuation"), i)
		}
		fmt.Fprintf(&b, `],"documentCount":%d,"continuation":%q}`, docs, next(r.URL.Query().Get("continuation")))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, b.String())
	}))
	return &requests, c
}

func TestVisit_LoopingContinuationEnds(t *testing.T) {
	t.Run("the same continuation forever", func(t *testing.T) {
		requests, c := loopServer(t, 3, func(string) string { return "AAAA" })
		got := map[string]int{}
		var last error
		for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1}) {
			if err != nil {
				last = err
				break
			}
			got[d.ID]++
		}
		if !errors.Is(last, vespa.ErrVisitStalled) {
			t.Fatalf("ended with %v, want ErrVisitStalled", last)
		}
		if n := requests.Load(); n > vespa.MaxStalledPages+1 {
			t.Errorf("%d requests, want at most %d", n, vespa.MaxStalledPages+1)
		}
		if len(got) != 6 {
			t.Errorf("yielded %v, want the 3 documents of the first page and the 3 of the page that repeats", got)
		}
		for id, n := range got {
			if n != 1 {
				t.Errorf("%s yielded %d times: a page that starts where the last did repeats it", id, n)
			}
		}
	})
	t.Run("two continuations in a cycle", func(t *testing.T) {
		requests, c := loopServer(t, 2, func(sent string) string {
			if sent == "AAAA" {
				return "BBBB"
			}
			return "AAAA"
		})
		var last error
		for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1}) {
			if err != nil {
				last = err
			}
		}
		if !errors.Is(last, vespa.ErrVisitStalled) {
			t.Fatalf("ended with %v, want ErrVisitStalled", last)
		}
		if n := requests.Load(); n > 3 {
			t.Errorf("%d requests, want 3 (first, A, B back to A)", n)
		}
	})
	t.Run("RemoveWhere stops counting", func(t *testing.T) {
		requests, c := loopServer(t, 5, func(string) string { return "AAAA" })
		n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: "ns", DocType: "music", Cluster: "content", Selection: "true", Slices: 1})
		if !errors.Is(err, vespa.ErrVisitStalled) {
			t.Fatalf("ended with %v, want ErrVisitStalled", err)
		}
		if r := requests.Load(); r > vespa.MaxStalledPages+1 || n > 5*r {
			t.Errorf("%d requests, %d counted", r, n)
		}
	})
	t.Run("a resumed visit guards from its token on", func(t *testing.T) {
		_, c := loopServer(t, 1, func(sent string) string { return "CCCC" })
		v, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range v.All(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			break // after the first document: the token is at the start
		}
		var last error
		for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: v.ResumeToken()}) {
			if err != nil {
				last = err
			}
		}
		if !errors.Is(last, vespa.ErrVisitStalled) {
			t.Fatalf("ended with %v, want ErrVisitStalled", last)
		}
	})
}
