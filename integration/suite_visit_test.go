package integration

import (
	"testing"

	"github.com/govespa/govespa/vespa"
)

// visitSlices is the number of slices the suite visits in.
const visitSlices = 4

// visitAll visits the corpus namespace with selection in visitSlices
// slices and returns how many times each song was yielded, by index,
// handing each to check unless it is nil (then only IDs are fetched).
// Documents that are not songs of the corpus fail t.
func (s *suite) visitAll(t *testing.T, selection string, check func(i int, got song)) (map[int]int, vespa.VisitStats) {
	t.Helper()
	name := s.tg.Name()
	fieldSet := "" // the document type's fields
	if check == nil {
		fieldSet = "[id]"
	}
	v, err := s.client.Visitor(vespa.VisitRequest{
		FieldSet:            fieldSet,
		Namespace:           s.docs.ns,
		DocType:             "music",
		Cluster:             s.tg.Cluster(),
		Selection:           selection,
		Slices:              visitSlices,
		WantedDocumentCount: 500,
	})
	if err != nil {
		t.Fatalf("[%s] Visitor: %v", name, err)
	}
	seen := map[int]int{}
	for doc, err := range v.All(s.ctx) {
		if err != nil {
			t.Fatalf("[%s] visit %q after %d documents: %v", name, selection, len(seen), err)
		}
		i := s.songIndex(doc.ID)
		if i < 0 {
			t.Errorf("[%s] visit yielded %q, which is not a song of the corpus", name, doc.ID)
			continue
		}
		seen[i]++
		if check != nil {
			got, err := decodeSong(doc.Fields)
			if err != nil {
				t.Errorf("[%s] visit: fields of %s: %v", name, doc.ID, err)
				continue
			}
			check(i, got)
		}
	}
	return seen, v.Stats()
}

// testVisit visits the corpus in 4 slices and checks that every fed song
// comes back exactly once, with the fields it was fed with.
func (s *suite) testVisit(t *testing.T) {
	name := s.tg.Name()
	seen, st := s.visitAll(t, "", func(i int, got song) {
		compareSong(t, name, s.docs.id(i).String(), got, s.docs.song(i))
	})
	if st.Slices != visitSlices || st.SlicesDone != visitSlices {
		t.Errorf("[%s] visit stats: %d of %d slices done, want %d of %d", name, st.SlicesDone, st.Slices, visitSlices, visitSlices)
	}
	if st.Documents != int64(s.docs.n) {
		t.Errorf("[%s] visit stats: %d documents, want %d", name, st.Documents, s.docs.n)
	}
	missing, twice := 0, 0
	for i := range s.docs.n {
		switch seen[i] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	if missing != 0 || twice != 0 {
		t.Errorf("[%s] visit: %d songs missing and %d yielded more than once, of %d", name, missing, twice, s.docs.n)
	}
	t.Logf("[%s] visited %d documents in %d pages over %d slices", name, st.Documents, st.Pages, st.Slices)
}

// testRemoveWhere removes the songs before 1980 by selection, and checks the
// count Vespa reports and what a visit finds afterwards.
func (s *suite) testRemoveWhere(t *testing.T) {
	name := s.tg.Name()
	const selection = "music.year < 1980"
	want := s.docs.count(func(i int) bool { return s.docs.song(i).Year < 1980 })
	removed, err := s.client.RemoveWhere(s.ctx, vespa.SelectionRequest{
		Namespace: s.docs.ns,
		DocType:   "music",
		Cluster:   s.tg.Cluster(),
		Selection: selection,
		Slices:    visitSlices,
	})
	if err != nil {
		t.Fatalf("[%s] RemoveWhere(%q): %v (after %d)", name, selection, err, removed)
	}
	if removed != int64(want) {
		t.Errorf("[%s] RemoveWhere(%q) = %d, want %d", name, selection, removed, want)
	}
	seen, _ := s.visitAll(t, "", nil)
	for i, n := range seen {
		if s.docs.song(i).Year < 1980 {
			t.Errorf("[%s] song-%d (year %d) is still there after RemoveWhere", name, i, s.docs.song(i).Year)
			break
		}
		if n != 1 {
			t.Errorf("[%s] song-%d yielded %d times", name, i, n)
		}
	}
	if len(seen) != s.docs.n-want {
		t.Errorf("[%s] %d songs left after RemoveWhere, want %d", name, len(seen), s.docs.n-want)
	}
}
