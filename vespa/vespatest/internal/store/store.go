// Package store keeps the emulator's documents: compact JSON in sharded maps,
// by bucket, with timestamps and tombstones for visiting.
package store

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
)

// The store keeps documents as raw JSON bytes, split into buckets by a hash
// of the document's location (as Vespa places documents in buckets). A bucket
// is also the unit a visit advances by, which is what makes continuation
// tokens exact: a document stays in its bucket for its whole life, and each
// bucket is read once under its lock.
const (
	bucketBits  = 12
	BucketCount = 1 << bucketBits
)

// entry is one stored document or tombstone. fields is never modified after
// it is stored, so readers may keep it after unlocking.
type entry struct {
	Fields   []byte // compact JSON object; nil for a tombstone
	Modified int64  // microseconds since the epoch, unique and increasing
}

func (e entry) Removed() bool { return e.Fields == nil }

type bucket struct {
	mu   sync.RWMutex
	docs map[string]entry
}

type Store struct {
	// snapshot is read-locked by every writer and write-locked by readers that
	// need a view of all buckets at one instant (the /search/ corpus).
	snapshot sync.RWMutex
	buckets  [BucketCount]bucket
	live     atomic.Int64
	clock    atomic.Int64
}

func New() *Store {
	s := &Store{}
	for i := range s.buckets {
		s.buckets[i].docs = map[string]entry{}
	}
	return s
}

func BucketOf(id docid.ID) int {
	h := id.Location()
	h ^= h >> 31
	h *= 0x9e3779b97f4a7c15
	h ^= h >> 29
	return int(h >> (64 - bucketBits))
}

// now returns a unique, increasing timestamp in microseconds.
func (s *Store) now() int64 {
	for {
		last := s.clock.Load()
		t := max(time.Now().UnixMicro(), last+1)
		if s.clock.CompareAndSwap(last, t) {
			return t
		}
	}
}

func (s *Store) Get(id docid.ID) (entry, bool) {
	b := &s.buckets[BucketOf(id)]
	b.mu.RLock()
	e, ok := b.docs[id.Full]
	b.mu.RUnlock()
	if !ok || e.Removed() {
		return entry{}, false
	}
	return e, true
}

// Mutate runs fn on the current state of one document under its bucket's
// lock; fn returns the new fields (nil to remove), and whether to write.
func (s *Store) Mutate(id docid.ID, fn func(cur []byte, exists bool) (next []byte, write bool, err error)) error {
	s.snapshot.RLock()
	defer s.snapshot.RUnlock()
	b := &s.buckets[BucketOf(id)]
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.docs[id.Full]
	exists := ok && !e.Removed()
	next, write, err := fn(e.Fields, exists)
	if err != nil || !write {
		return err
	}
	if next == nil {
		if !ok {
			// Removing a document that never existed leaves no tombstone.
			return nil
		}
		if exists {
			s.live.Add(-1)
		}
		b.docs[id.Full] = entry{Modified: s.now()}
		return nil
	}
	if !exists {
		s.live.Add(1)
	}
	b.docs[id.Full] = entry{Fields: next, Modified: s.now()}
	return nil
}

// storedDoc is a document read from a bucket.
type storedDoc struct {
	Id string
	entry
}

// ReadBucket returns the documents and tombstones of bucket i, sorted by ID.
func (s *Store) ReadBucket(i int) []storedDoc {
	b := &s.buckets[i]
	b.mu.RLock()
	out := make([]storedDoc, 0, len(b.docs))
	for id, e := range b.docs {
		out = append(out, storedDoc{id, e})
	}
	b.mu.RUnlock()
	slices.SortFunc(out, func(a, b storedDoc) int { return strings.Compare(a.Id, b.Id) })
	return out
}

// Each calls fn for every live document while holding every writer off, so
// that fn sees one consistent snapshot. fn must not call back into the store.
func (s *Store) Each(fn func(id string, fields []byte) bool) {
	s.snapshot.Lock()
	defer s.snapshot.Unlock()
	for i := range s.buckets {
		for id, e := range s.buckets[i].docs {
			if e.Removed() {
				continue
			}
			if !fn(id, e.Fields) {
				return
			}
		}
	}
}

func (s *Store) Count() int { return int(s.live.Load()) }

// HasReplica reports whether the bucket of id holds anything (documents or
// tombstones): on Vespa a bucket that was never written has no replica, and
// a get of a document in it is answered by the distributor, not a content
// node.
func (s *Store) HasReplica(id docid.ID) bool {
	b := &s.buckets[BucketOf(id)]
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.docs) > 0
}

// HasBuckets reports whether any bucket holds anything: a visit then reaches
// a content node.
func (s *Store) HasBuckets() bool {
	for i := range s.buckets {
		b := &s.buckets[i]
		b.mu.RLock()
		n := len(b.docs)
		b.mu.RUnlock()
		if n > 0 {
			return true
		}
	}
	return false
}
