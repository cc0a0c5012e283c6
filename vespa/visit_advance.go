package vespa

import (
	"errors"
	"fmt"
	"hash/fnv"
)

// This file holds the guard that ends a chain of pages which does not
// advance: a server that answers the continuation it was sent (or one it
// sent before) would otherwise be followed forever, yielding the same
// documents or counting the same removals again and again.

// ErrVisitStalled is matched (errors.Is) by the error of a visit, an
// UpdateWhere or a RemoveWhere whose server stopped advancing: it returned
// the continuation it was sent on MaxStalledPages pages in a row, or a
// continuation it had already returned earlier in the same chain.
var ErrVisitStalled = errors.New("vespa: visit does not advance")

// MaxStalledPages is how many pages in a row may return the continuation
// they were fetched with before a chain fails with [ErrVisitStalled]. Vespa
// does this when a page times out before it finished a bucket (a streamed
// visit, or a mass operation whose time chunk ran out), so a few in a row
// are normal under load, each after a full timeout; documents they yield
// again are skipped by the visitor.
const MaxStalledPages = 10

// advanceGuard watches the continuations of one chain.
type advanceGuard struct {
	seen    map[uint64]struct{} // hashes of every continuation followed
	stalled int                 // pages in a row that returned what they were sent
}

// newAdvanceGuard starts a guard for a chain that resumes from start ("" at
// the beginning).
func newAdvanceGuard(start string) *advanceGuard {
	g := &advanceGuard{seen: map[uint64]struct{}{}}
	if start != "" {
		g.seen[hashContinuation(start)] = struct{}{}
	}
	return g
}

// check judges the continuation next returned by a page fetched with sent,
// and returns an error matching ErrVisitStalled when the chain does not
// advance. path names the chain's path, for the message.
func (g *advanceGuard) check(path, sent, next string) error {
	if next == "" {
		return nil // the chain is finished
	}
	if next == sent {
		g.stalled++
		if g.stalled >= MaxStalledPages {
			return fmt.Errorf("%w: %s: %d pages in a row returned the continuation they were sent", ErrVisitStalled, path, g.stalled)
		}
		return nil
	}
	g.stalled = 0
	h := hashContinuation(next)
	if _, ok := g.seen[h]; ok {
		return fmt.Errorf("%w: %s: a page returned a continuation this chain had already followed", ErrVisitStalled, path)
	}
	g.seen[h] = struct{}{}
	return nil
}

// hashContinuation is the 64-bit FNV-1a hash of a continuation.
func hashContinuation(c string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(c))
	return h.Sum64()
}
