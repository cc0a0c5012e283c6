package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/query"
)

// visitSlices is the number of slices the visits split the corpus into.
const visitSlices = 4

// quickstart holds what the steps share.
type quickstart struct {
	r        *report
	t        *target
	ns       string
	songs    []song
	embedder models.Embedder
	stderr   io.Writer
}

// clean removes what an earlier, interrupted run left in the namespace, so
// that the counts below are this run's.
func (q *quickstart) clean(ctx context.Context) error {
	n, err := q.t.client.RemoveWhere(ctx, q.selection("true"))
	if err != nil {
		return fmt.Errorf("removing the documents of an earlier run: %w", err)
	}
	if n > 0 {
		q.r.ok("clean", "removed %d documents left in namespace %q by an earlier run", n, q.ns)
	}
	return nil
}

// feed puts every song through the asynchronous feeder and checks that each
// one succeeded.
func (q *quickstart) feed(ctx context.Context) error {
	bar := q.progressBar(len(q.songs))
	var (
		mu    sync.Mutex
		first error // the first failure, for the report
	)
	f, err := feed.New(q.t.client, feed.Config{
		// OnOutcome runs concurrently on the feeder's goroutines.
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			if bar != nil {
				bar.Add(1)
			}
			if !o.OK() {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("%s: %w", o.IDString(), o.Err)
				}
				mu.Unlock()
			}
		},
	})
	if err != nil {
		return err
	}
	start := time.Now()
	for _, s := range q.songs {
		if err := f.Put(ctx, s.id, s.fields); err != nil {
			if cerr := f.Close(context.WithoutCancel(ctx)); cerr != nil {
				return errors.Join(fmt.Errorf("enqueuing %s: %w", s.id, err), cerr)
			}
			return fmt.Errorf("enqueuing %s: %w", s.id, err)
		}
	}
	if err := f.Close(ctx); err != nil {
		return err
	}
	elapsed := time.Since(start)
	if bar != nil {
		bar.Finish()
	}
	st := f.Stats()
	q.r.check(st.Succeeded == int64(len(q.songs)) && st.Failed == 0, "feed",
		"%d documents: %d ok, %d failed in %v = %.0f documents/s (%d requests, latency p50 %v, p99 %v)",
		len(q.songs), st.Succeeded, st.Failed, ms(elapsed), perSecond(st.Succeeded, elapsed),
		st.Requests, ms(st.Latency.P50), ms(st.Latency.P99))
	if first != nil {
		q.r.fail("feed", "first failure: %v", first)
	}
	return nil
}

// progressBar returns a bar of n steps on stderr, or nil when stderr is not a
// terminal.
func (q *quickstart) progressBar(n int) *progressbar.ProgressBar {
	if !isTerminal(q.stderr) {
		return nil
	}
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(q.stderr),
		progressbar.OptionSetDescription("feeding"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())
}

// queries runs three queries: one built with the YQL builder, one with
// userQuery(), and a nearestNeighbor query with a vector from the embedder.
func (q *quickstart) queries(ctx context.Context) error {
	qc, err := query.New(q.t.client)
	if err != nil {
		return err
	}

	// 1. The YQL builder: every value is an escaped literal.
	yql, err := query.Select("title", "year", "popularity").From("music").
		Where(query.And(query.Contains("title", "love"), query.GreaterOrEqual("year", 2000))).
		OrderBy(query.Desc("popularity")).
		Limit(3).
		YQL()
	if err != nil {
		return err
	}
	want := 0
	for _, s := range q.songs {
		if s.year >= 2000 && hasWord(s.title, "love") {
			want++
		}
	}
	if err := q.search(ctx, qc, "yql", &query.Request{YQL: yql}, func(res *query.Result) bool {
		return res.TotalCount >= int64(want) // other namespaces may add matches, never remove them
	}, fmt.Sprintf("(%d expected)", want)); err != nil {
		return err
	}

	// 2. userQuery(): the user's text in Vespa's simple query language.
	userYQL, err := query.Select("title", "year").From("music").Where(query.UserQuery()).YQL()
	if err != nil {
		return err
	}
	if err := q.search(ctx, qc, "userQuery", &query.Request{
		YQL:     userYQL,
		Query:   "midnight +dream", // dream is required, midnight ranks higher
		Ranking: "bm25",
		Hits:    3,
	}, nil, ""); err != nil {
		return err
	}

	// 3. nearestNeighbor: the text is embedded on the client side by the
	// retrying embedder and sent as the query tensor q.
	text := "golden summer river"
	req, err := hashingModel.NearestNeighborQuery(ctx, q.embedder, text, models.VectorQuery{
		Sources:    []string{"music"},
		Ranking:    "closeness", // the music schema's rank profile on query(q)
		TargetHits: 10,
		Hits:       3,
	})
	if err != nil {
		return err
	}
	return q.search(ctx, qc, "nearestNeighbor", req, func(res *query.Result) bool {
		// The nearest title shares a word with the text.
		var top struct{ Title string }
		if res.Hits[0].Decode(&top) != nil {
			return false
		}
		for _, w := range strings.Fields(text) {
			if hasWord(top.Title, w) {
				return true
			}
		}
		return false
	}, fmt.Sprintf("for %q", text))
}

// search runs one query and reports it: it must return hits, and pass good
// when good is given.
func (q *quickstart) search(ctx context.Context, qc *query.Client, name string, req *query.Request,
	good func(*query.Result) bool, note string) error {
	start := time.Now()
	res, err := qc.Search(ctx, req)
	if err != nil {
		return fmt.Errorf("query %s: %w", name, err)
	}
	elapsed := time.Since(start)
	ok := len(res.Hits) > 0 && (good == nil || good(res))
	var top struct {
		Title string `json:"title"`
	}
	if len(res.Hits) > 0 {
		_ = res.Hits[0].Decode(&top)
	}
	if note != "" {
		note = " " + note
	}
	q.r.check(ok, "query", "%-15s %d hits of %d matches%s in %v, top %q (relevance %v)",
		name, len(res.Hits), res.TotalCount, note, ms(elapsed), top.Title, topRelevance(res))
	return nil
}

// topRelevance returns the relevance of the first hit, or 0.
func topRelevance(res *query.Result) any {
	if len(res.Hits) == 0 {
		return 0
	}
	return res.Hits[0].Relevance
}

// hasWord reports whether title has the word w.
func hasWord(title, w string) bool {
	for _, t := range strings.Fields(strings.ToLower(title)) {
		if t == w {
			return true
		}
	}
	return false
}

// visit reads every document of the namespace with visitSlices slices in
// parallel (or those that selection selects), and returns the distinct IDs
// and the number of documents read.
func (q *quickstart) visit(ctx context.Context, selection string) (map[string]struct{}, int, error) {
	seen := make(map[string]struct{}, len(q.songs))
	n := 0
	for doc, err := range q.t.client.Visit(ctx, vespa.VisitRequest{
		Namespace: q.ns,
		DocType:   "music",
		Cluster:   q.t.cluster,
		Selection: selection,
		FieldSet:  "[id]", // IDs only: the check needs nothing else
		Slices:    visitSlices,
	}) {
		if err != nil {
			return nil, n, err
		}
		seen[doc.ID] = struct{}{}
		n++
	}
	return seen, n, nil
}

// visitAll checks that a visit returns every fed document exactly once.
func (q *quickstart) visitAll(ctx context.Context) error {
	start := time.Now()
	seen, n, err := q.visit(ctx, "")
	if err != nil {
		return fmt.Errorf("visit: %w", err)
	}
	elapsed := time.Since(start)
	missing := 0
	for _, s := range q.songs {
		if _, ok := seen[s.id.String()]; !ok {
			missing++
		}
	}
	q.r.check(n == len(q.songs) && len(seen) == len(q.songs) && missing == 0, "visit",
		"%d documents, %d distinct IDs, %d missing, %d slices in %v = %.0f documents/s",
		n, len(seen), missing, visitSlices, ms(elapsed), perSecond(int64(n), elapsed))
	return nil
}

// removeOld removes the songs before 1990 by selection, and checks that
// exactly those went.
func (q *quickstart) removeOld(ctx context.Context) error {
	const selection = "music.year < 1990"
	want := 0
	for _, s := range q.songs {
		if s.year < 1990 {
			want++
		}
	}
	start := time.Now()
	removed, err := q.t.client.RemoveWhere(ctx, q.selection(selection))
	if err != nil {
		return fmt.Errorf("remove where %s: %w", selection, err)
	}
	elapsed := time.Since(start)
	_, left, err := q.visit(ctx, selection)
	if err != nil {
		return fmt.Errorf("visit after removal: %w", err)
	}
	_, rest, err := q.visit(ctx, "")
	if err != nil {
		return fmt.Errorf("visit after removal: %w", err)
	}
	q.r.check(removed == int64(want) && left == 0 && rest == len(q.songs)-want, "remove",
		"where %s: %d removed (%d expected) in %v; %d left that match, %d others kept",
		selection, removed, want, ms(elapsed), left, rest)
	return nil
}

// removeRest removes what is left of the corpus.
func (q *quickstart) removeRest(ctx context.Context) error {
	removed, err := q.t.client.RemoveWhere(ctx, q.selection("true"))
	if err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	_, left, err := q.visit(ctx, "")
	if err != nil {
		return fmt.Errorf("visit after cleanup: %w", err)
	}
	q.r.check(left == 0, "cleanup", "%d removed, %d left in namespace %q", removed, left, q.ns)
	return nil
}

// selection is a mass operation on the namespace's music documents.
func (q *quickstart) selection(sel string) vespa.SelectionRequest {
	return vespa.SelectionRequest{
		Namespace: q.ns,
		DocType:   "music",
		Cluster:   q.t.cluster,
		Selection: sel,
		Slices:    visitSlices,
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
