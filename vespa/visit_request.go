package vespa

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// This file holds VisitRequest, its defaults and its validation, and the
// chains a visit or a mass operation follows: one per slice and bucket
// space, each with its own continuation.

// maxSlices bounds VisitRequest.Slices: more slices than Vespa has buckets
// in a normal cluster gives nothing but empty slices.
const maxSlices = 1 << 16

// DefaultVisitParallelism is the default number of slices a visit fetches
// at the same time (VisitRequest.Parallelism), and the default number of
// slices of a visit of the whole corpus (VisitRequest.Slices).
const DefaultVisitParallelism = 8

// DefaultWantedDocumentCount is the default page size of a visit
// (VisitRequest.WantedDocumentCount), as Vespa's CLI asks. Vespa's own
// default is 1, a page of about one bucket, which makes a visit one round
// trip per bucket.
const DefaultWantedDocumentCount = 1000

// The bucket spaces of a Vespa content cluster (VisitRequest.BucketSpace,
// SelectionRequest.BucketSpace). Documents of a type declared global="true"
// in services.xml are in the global space, all others in the default one.
const (
	BucketSpaceDefault = "default"
	BucketSpaceGlobal  = "global"
)

// VisitRequest describes a visit: a read of every document that matches,
// page by page, through Vespa's /document/v1 (GET without a document ID).
// The zero value of each field means a default, as noted per field.
//
// # Choosing the page size and the slices
//
// A visit's speed is set by how many requests are in flight and how much
// each brings back. Each page request costs Vespa a visitor session and a
// round trip, so pages of 1000 documents (the default) spend little on
// overhead; raise WantedDocumentCount for small documents, lower it for
// large ones (a page is held in memory whole, and a page of 1000 documents
// of 100 kB is 100 MB; a page larger than [WithVisitPageLimit], 256 MiB by
// default, is an error). Vespa ends a page at a bucket boundary once it has
// that many, so pages are a little larger.
//
// Slices split the corpus into parts that are fetched at the same time, each
// its own chain of pages; Parallelism of them are in flight at once. A
// visit of the whole corpus uses Parallelism slices (8 by default), so every
// goroutine has its own chain. More slices than Parallelism make the resume
// token larger and help only when several processes share a visit
// (SliceIDs); more parallelism helps until Vespa's content nodes or the
// network are busy, at which point 429s and 503s (retried) say so.
type VisitRequest struct {
	// Namespace is the namespace of the documents visited; with DocType it
	// makes the path /document/v1/<ns>/<type>/docid. With DocType empty it
	// is added to the selection as id.namespace=='<ns>' instead. Vespa puts
	// it in a selection either way, so it may hold no quote, backslash or
	// control byte. Empty: every namespace.
	Namespace string
	// DocType is the document type visited: a name of letters, digits and
	// '_'. Empty: every document type, at /document/v1/, which needs Cluster
	// (as does a DocType without a Namespace, which is then added to the
	// selection).
	DocType string
	// Cluster is the content cluster to visit. Empty: the only one (it is
	// required when DocType is empty).
	Cluster string
	// BucketSpace is the bucket space visited when the visit is at the root
	// (without both Namespace and DocType): BucketSpaceDefault or
	// BucketSpaceGlobal. Empty: both, one after the other per slice, so that
	// documents of global types are visited too. A visit with both
	// Namespace and DocType is in that type's space and must leave it empty.
	BucketSpace string
	// Selection is a document selection expression, such as
	// "music.year > 2000"; it must be one balanced expression (its
	// parentheses matched and its strings closed), since it is combined with
	// the namespace and type as (<selection>) and (...). Empty: every
	// document.
	Selection string
	// FromTimestamp and ToTimestamp restrict the visit to documents last
	// written (put, updated or removed) in [FromTimestamp, ToTimestamp],
	// both ends included, at microsecond precision, by the content nodes'
	// clocks. Zero: no bound. Consecutive windows of an incremental export
	// chain as From = the previous To + 1 µs.
	FromTimestamp, ToTimestamp time.Time
	// IncludeRemoves adds the documents removed (within the timestamp
	// window) as Documents with Removed set and no fields, for as long as
	// Vespa keeps their tombstones (two weeks by default). False: only
	// documents that exist.
	IncludeRemoves bool
	// FieldSet selects the fields returned: "[all]", "[id]", "[document]"
	// or "<type>:f1,f2". Empty: the document type's fields.
	FieldSet string
	// WantedDocumentCount asks Vespa to end each page once it has at least
	// this many documents (a page always holds whole buckets). Zero:
	// DefaultWantedDocumentCount (1000).
	WantedDocumentCount int
	// Slices splits the corpus into this many disjoint parts, each with its
	// own continuation chain; the parts this process visits are SliceIDs.
	// Zero: the number in ResumeToken; else 1 when SliceIDs is given; else
	// as many as Parallelism (8 by default).
	Slices int
	// SliceIDs are the slices, in [0, Slices), this process visits, so that
	// several processes can share one visit. Nil: all of them, or the ones
	// in ResumeToken.
	SliceIDs []int
	// Parallelism is how many slices are fetched at the same time, each by
	// its own goroutine. Zero: DefaultVisitParallelism (8), at most one per
	// chain (a slice in one bucket space).
	Parallelism int
	// Stream asks Vespa to stream each page (stream=true): it sends the
	// documents as it visits them, in JSON Lines, with its percentFinished
	// after each bucket (see [VisitStats.PercentFinished]), and throttles
	// the visiting dynamically (Concurrency is then its upper bound). Pages
	// still end at WantedDocumentCount, so that each is read whole before
	// its documents are yielded: a page that reports a failure, or that was
	// cut short, is fetched again, and no document is yielded twice. Each
	// chain's first page is asked for unstreamed: Vespa commits 200 to a
	// streamed page before it parses the selection and never ends the answer
	// when the selection does not parse, so a streamed first page would wait
	// out the whole deadline; unstreamed, that mistake is Vespa's prompt 400.
	// False: pages are answered once complete.
	Stream bool
	// Timeout is Vespa's timeout of each page request; the client waits
	// 1.1×Timeout + 1 s for it. Zero: the client's default (WithTimeout),
	// else Vespa's 180 s.
	Timeout time.Duration
	// Concurrency is Vespa's concurrency parameter: how many buckets the
	// content nodes visit in parallel for each page. Zero: Vespa's default (1).
	Concurrency int
	// TensorFormat is how tensors are rendered (format.tensors): "short",
	// "long", "short-value", ... Empty: Vespa's default.
	TensorFormat string
	// ResumeToken continues a visit from where Visitor.ResumeToken said it
	// stood: every document not yet yielded is yielded once, and none of
	// the others. It must come from a visit with the same Namespace,
	// DocType, Cluster, BucketSpace, Selection, timestamps, IncludeRemoves
	// and Slices. Empty: start from the beginning.
	ResumeToken string
	// Checkpoint, when set, is called on the loop's goroutine after the
	// last document of each page has been yielded (before the next
	// document), with the resume token at that point and the counters so
	// far. The token is then its smallest: it holds no document of a page
	// in progress, about 60 bytes per slice, whereas one taken in the middle
	// of pages grows by about 11 characters per document already yielded
	// from each of them. A job that saves its progress here saves small
	// tokens; one that saves [Visitor.ResumeToken] after any document loses
	// nothing either, with a larger token.
	Checkpoint func(token string, stats VisitStats)
	// Progress, when set, is called on the loop's goroutine at most every
	// ProgressInterval (between pages, so a page is never cut short), and
	// once when the visit ends, with what the visit has done so far.
	Progress func(VisitProgress)
	// ProgressInterval is the least time between two calls of Progress.
	// Zero: one second.
	ProgressInterval time.Duration
}

// visitChain is one chain of continuations: a slice in a bucket space
// ("" when the request names no space: a typed visit).
type visitChain struct {
	space string
	slice int
}

// compareChains orders chains by space, then slice.
func compareChains(a, b visitChain) int {
	if a.space != b.space {
		if a.space < b.space {
			return -1
		}
		return 1
	}
	return a.slice - b.slice
}

// bucketSpaces returns the spaces a request at the root visits, or [""] for
// one with a type in its path (whose own space Vespa picks).
func bucketSpaces(field, space string, root bool) ([]string, error) {
	switch {
	case space != "" && space != BucketSpaceDefault && space != BucketSpaceGlobal:
		return nil, fmt.Errorf("vespa: %s %q is not %q or %q (empty: both)", field, space, BucketSpaceDefault, BucketSpaceGlobal)
	case !root && space != "":
		return nil, fmt.Errorf("vespa: %s is only for requests without a document type in the path (a type is in its own space)", field)
	case !root:
		return []string{""}, nil
	case space == "":
		return []string{BucketSpaceDefault, BucketSpaceGlobal}, nil
	}
	return []string{space}, nil
}

// chainsOf returns the chains of ids (sorted) in each of spaces.
func chainsOf(spaces []string, ids []int) []visitChain {
	chains := make([]visitChain, 0, len(spaces)*len(ids))
	for _, sp := range spaces {
		for _, id := range ids {
			chains = append(chains, visitChain{space: sp, slice: id})
		}
	}
	slices.SortFunc(chains, compareChains)
	return chains
}

// checkSliceIDs sorts ids and checks that each is in [0, n) once.
func checkSliceIDs(field string, ids []int, n int) error {
	if ids != nil && len(ids) == 0 {
		return fmt.Errorf("vespa: %s: SliceIDs is empty (nil means all slices)", field)
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id < 0 || id >= n {
			return fmt.Errorf("vespa: %s: slice ID %d is not in [0, %d)", field, id, n)
		}
		if i > 0 && ids[i-1] == id {
			return fmt.Errorf("vespa: %s: slice ID %d is given twice", field, id)
		}
	}
	return nil
}

// allSlices returns 0, 1, ..., n-1.
func allSlices(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// timestampMicros returns t in microseconds since the epoch, 0 for the zero
// time, and an error for a time at or before the epoch.
func timestampMicros(field string, t time.Time) (int64, error) {
	if t.IsZero() {
		return 0, nil
	}
	us := t.UnixMicro()
	if us <= 0 {
		return 0, fmt.Errorf("vespa: VisitRequest: %s %v is not after 1970-01-01 (zero: no bound)", field, t)
	}
	return us, nil
}

// init validates v.req and fills in the visit's path, selection, chains
// and progress (from the resume token, if any).
func (v *Visitor) init() error {
	r := &v.req
	root := r.DocType == "" || r.Namespace == "" // Vespa's typed paths need both
	if root && r.Cluster == "" {
		return errors.New("vespa: VisitRequest: Cluster is required to visit without both Namespace and DocType")
	}
	if err := checkDocTypeName("VisitRequest: DocType", r.DocType); err != nil {
		return err
	}
	if err := checkNamespace("VisitRequest: Namespace", r.Namespace); err != nil {
		return err
	}
	if r.Selection != "" {
		if err := checkSelection("VisitRequest: Selection", r.Selection); err != nil {
			return err
		}
	}
	spaces, err := bucketSpaces("VisitRequest: BucketSpace", r.BucketSpace, root)
	if err != nil {
		return err
	}
	if v.from, err = timestampMicros("FromTimestamp", r.FromTimestamp); err != nil {
		return err
	}
	if v.to, err = timestampMicros("ToTimestamp", r.ToTimestamp); err != nil {
		return err
	}
	switch {
	case v.to != 0 && v.from > v.to:
		return fmt.Errorf("vespa: VisitRequest: FromTimestamp %v is after ToTimestamp %v", r.FromTimestamp, r.ToTimestamp)
	case r.Slices < 0 || r.Slices > maxSlices:
		return fmt.Errorf("vespa: VisitRequest: Slices %d is not in [0, %d]", r.Slices, maxSlices)
	case r.WantedDocumentCount < 0:
		return fmt.Errorf("vespa: VisitRequest: WantedDocumentCount %d is negative", r.WantedDocumentCount)
	case r.Concurrency < 0:
		return fmt.Errorf("vespa: VisitRequest: Concurrency %d is negative", r.Concurrency)
	case r.Parallelism < 0:
		return fmt.Errorf("vespa: VisitRequest: Parallelism %d is negative", r.Parallelism)
	case r.Timeout < 0:
		return fmt.Errorf("vespa: VisitRequest: Timeout %v is negative", r.Timeout)
	}
	if root {
		v.path = "/document/v1/"
		v.selection = composeSelection(r.Selection, r.DocType, r.Namespace)
	} else {
		v.path = "/document/v1/" + EscapePathSegment(r.Namespace) + "/" + EscapePathSegment(r.DocType) + "/docid"
		v.selection = r.Selection
	}
	v.wanted = r.WantedDocumentCount
	if v.wanted == 0 {
		v.wanted = DefaultWantedDocumentCount
	}
	v.parallelism = r.Parallelism
	if v.parallelism == 0 {
		v.parallelism = DefaultVisitParallelism
	}

	var resumed *visitProgress
	if r.ResumeToken != "" {
		p, err := decodeResumeToken(r.ResumeToken)
		if err != nil {
			return err
		}
		if r.Slices != 0 && r.Slices != p.slices {
			return tokenErrorf("it is for a visit with %d slices, not %d", p.slices, r.Slices)
		}
		resumed = p
	}
	slicesN := r.Slices
	switch {
	case slicesN != 0:
	case resumed != nil:
		slicesN = resumed.slices
	case r.SliceIDs != nil:
		slicesN = 1
	default:
		slicesN = min(v.parallelism, maxSlices)
	}
	ids := slices.Clone(r.SliceIDs)
	var chains []visitChain
	switch {
	case ids == nil && resumed != nil:
		chains = resumed.chains()
	case ids == nil:
		ids = allSlices(slicesN)
	}
	if chains == nil {
		if err := checkSliceIDs("VisitRequest", ids, slicesN); err != nil {
			return err
		}
		chains = chainsOf(spaces, ids)
	}
	v.chains = chains
	fp := visitFingerprint(r, v.from, v.to, slicesN)
	v.progress = visitProgress{fingerprint: fp, slices: slicesN, states: make([]sliceState, len(chains))}
	v.pending = make([][]uint64, len(chains))
	v.percent = make([]float64, len(chains))
	for i, ch := range chains {
		v.progress.states[i] = sliceState{id: ch.slice, space: ch.space}
	}
	if resumed != nil {
		if resumed.fingerprint != fp {
			return tokenErrorf("it is for another visit (its namespace, document type, cluster, bucket space, selection, timestamps or removes differ)")
		}
		if !slices.Equal(resumed.chains(), chains) {
			return tokenErrorf("it records slices %v, not the requested %v", resumed.chains(), chains)
		}
		for _, ch := range chains {
			if !slices.Contains(spaces, ch.space) {
				return tokenErrorf("it is for a visit of another bucket space")
			}
		}
		for i, st := range resumed.states {
			v.progress.states[i] = st
			v.pending[i] = slices.Clone(st.seen)
			if st.done {
				v.stats.SlicesDone++
			}
		}
	}
	v.stats.Slices = len(chains)
	v.parallelism = min(v.parallelism, len(chains))
	return nil
}
