package feed

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
)

// journalFlushEvery is how many records are buffered before they are written
// to the file; at most this many acknowledgements are lost by a crash, and
// their operations are then fed again, in order.
const journalFlushEvery = 256

// Journal is a resume journal: an append-only file of the feed-file
// operations that Vespa acknowledged (2xx), each named by its source and byte
// offset and bound to its content by a 64-bit hash of the operation (its
// kind, document ID, condition, create flag and body). Give it to
// [Config.Journal]; when the same feed is run again after a crash or an
// interruption, [Feeder.Feed] and [Feeder.FeedReader] skip the operations it
// holds and feed the rest.
//
// An operation is skipped only when the record at its source and offset has
// its very hash: an operation that was never acknowledged is never skipped,
// even when another input was fed under the same name. When the record
// differs (the file was changed or regenerated, or an earlier version of the
// journal kept no hash), the operation is fed, and the mismatch is counted
// in [Journal.Mismatches] and [Stats.JournalMismatches] and logged once per
// source at warning level. Operations without a source name (Source "", as
// a standard input fed without a name) are never journalled nor skipped.
//
// Order is kept across runs: an acknowledged operation is skipped only if
// every earlier operation on the same document in that source was skipped
// too; once one is fed again, the later ones on that document are fed again
// after it, so a document never ends in a state older than the input's.
//
// The file holds one line per acknowledged operation; loading it keeps 8
// bytes per operation in memory. A Journal is safe for concurrent use. Close
// it after the feeder.
type Journal struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	acked   map[string][]journalRecord // sorted by offset, per source, from earlier runs
	warned  map[string]bool            // sources whose mismatch was logged
	misses  int64                      // mismatches met
	pending int
	line    []byte // the record being written, reused
	err     error  // the first write error
}

// ErrJournalInUse matches the error of [OpenJournal] for a journal file
// that another open Journal holds, in this process or another: two feeds
// writing one journal would each trust the other's records.
var ErrJournalInUse = errors.New("in use by another feed")

// OpenJournal opens (or creates) the journal file at path, locks it for
// this Journal until [Journal.Close], and loads what it holds. A journal
// that another Journal holds is refused with an error matching
// [ErrJournalInUse] (on systems without flock(2), such as Windows, it is not
// locked: give each feed its own journal there). A torn or zero-filled last
// line, left by a crash mid-write, is ignored, and the next record starts on
// a line of its own. Records are appended (O_APPEND), never written over.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("feed: journal: %w", err)
	}
	if err := lockJournal(f); err != nil {
		return nil, errors.Join(fmt.Errorf("feed: journal %s: %w", path, err), closeErr(f))
	}
	j := &Journal{f: f, acked: map[string][]journalRecord{}, warned: map[string]bool{}}
	if err := j.load(); err != nil {
		return nil, errors.Join(err, closeErr(f))
	}
	j.w = bufio.NewWriterSize(f, 64<<10)
	if torn, err := endsTorn(f); err != nil {
		return nil, errors.Join(fmt.Errorf("feed: journal: %w", err), closeErr(f))
	} else if torn {
		// End the torn line: the first record of this run must not join it.
		_ = j.w.WriteByte('\n')
	}
	return j, nil
}

// endsTorn reports whether f holds something after its last newline.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return last[0] != '\n', nil
}

// closeErr closes f and wraps its error, if any.
func closeErr(f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("feed: journal: %w", err)
	}
	return nil
}

// journalRecord is one acknowledged operation of an earlier run.
type journalRecord struct {
	offset int64
	hash   uint64 // 0: unknown (a record of the first journal format)
}

// load reads the records of earlier runs: lines "<offset> <hash> <source>",
// the hash in 16 hexadecimal digits and the source quoted, or the first
// format's "<offset> <source>", which carries no hash.
func (j *Journal) load() error {
	sc := bufio.NewScanner(j.f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		// A crash may leave zero bytes where a record was to be (a file
		// system that extended the file before writing it); a record that
		// an earlier version appended after them is still read.
		line := bytes.TrimLeft(sc.Bytes(), "\x00")
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			continue
		}
		off, err := strconv.ParseInt(string(line[:sp]), 10, 64)
		if err != nil {
			continue
		}
		rest := line[sp+1:]
		var h uint64
		if len(rest) > 17 && rest[16] == ' ' && rest[0] != '"' {
			if h, err = strconv.ParseUint(string(rest[:16]), 16, 64); err != nil {
				continue
			}
			rest = rest[17:]
		}
		src, err := strconv.Unquote(string(rest))
		if err != nil {
			continue
		}
		j.acked[src] = append(j.acked[src], journalRecord{off, h})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("feed: journal: %w", err)
	}
	for src, recs := range j.acked {
		slices.SortStableFunc(recs, func(a, b journalRecord) int { return cmp.Compare(a.offset, b.offset) })
		// The last record at an offset wins: a rerun of a changed file
		// records the new content.
		out := recs[:0]
		for _, r := range recs {
			if n := len(out); n > 0 && out[n-1].offset == r.offset {
				out[n-1] = r
				continue
			}
			out = append(out, r)
		}
		j.acked[src] = out
	}
	return nil
}

// Acknowledged reports whether an earlier run recorded an operation of
// source at offset as acknowledged, whatever its content. ([Feeder.Feed]
// skips an operation only when its content matches the record too.)
func (j *Journal) Acknowledged(source string, offset int64) bool {
	_, ok := j.find(source, offset)
	return ok
}

// find returns the record of source at offset.
func (j *Journal) find(source string, offset int64) (journalRecord, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	recs := j.acked[source]
	i, ok := slices.BinarySearchFunc(recs, offset, func(r journalRecord, off int64) int { return cmp.Compare(r.offset, off) })
	if !ok {
		return journalRecord{}, false
	}
	return recs[i], true
}

// lastAcked returns the largest offset recorded for source by earlier runs,
// and false when there is none.
func (j *Journal) lastAcked(source string) (int64, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	recs := j.acked[source]
	if len(recs) == 0 {
		return 0, false
	}
	return recs[len(recs)-1].offset, true
}

// Mismatches returns the number of operations that an earlier run recorded
// at their source and offset with other content (or without a hash), and
// that were therefore fed rather than skipped.
func (j *Journal) Mismatches() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.misses
}

// mismatch counts a record that does not match op, and reports whether it
// is the first one of op's source.
func (j *Journal) mismatch(op *Operation) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.misses++
	if j.warned[op.Source] {
		return false
	}
	j.warned[op.Source] = true
	return true
}

// record appends an acknowledged operation. A write error is kept: the
// journal records nothing more, and [Journal.Flush], [Journal.Close],
// [Journal.Err] and the feeder's Flush and Close return it.
func (j *Journal) record(op *Operation) {
	h := op.contentHash()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.w == nil || j.err != nil {
		return
	}
	b := strconv.AppendInt(j.line[:0], op.Offset, 10)
	b = append(b, ' ')
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, "0123456789abcdef"[h>>uint(shift)&0xf])
	}
	b = append(b, ' ')
	b = strconv.AppendQuote(b, op.Source)
	b = append(b, '\n')
	j.line = b
	if _, err := j.w.Write(b); err != nil {
		j.err = fmt.Errorf("feed: journal: %w", err)
		return
	}
	j.pending++
	if j.pending >= journalFlushEvery {
		j.flushLocked()
	}
}

func (j *Journal) flushLocked() {
	j.pending = 0
	if j.err != nil {
		return
	}
	if err := j.w.Flush(); err != nil {
		j.err = fmt.Errorf("feed: journal: %w", err)
	}
}

// Err returns the first error met writing the journal, or nil. After an
// error the journal records nothing more: a rerun feeds again what it
// failed to record.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Flush writes the buffered records to the file and returns the first write
// error the journal met, if any.
func (j *Journal) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.flushOpenLocked() {
		return errJournalClosed
	}
	return j.err
}

var errJournalClosed = errors.New("feed: journal closed")

// flushOpenLocked flushes the buffered records of an open journal and says
// whether it was open.
func (j *Journal) flushOpenLocked() bool {
	if j.w == nil {
		return false
	}
	j.flushLocked()
	return true
}

// Close flushes the journal, syncs it to disk and closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.flushOpenLocked() {
		return errJournalClosed
	}
	j.w = nil
	err := j.err
	if e := j.f.Sync(); err == nil && e != nil {
		err = fmt.Errorf("feed: journal: %w", e)
	}
	if e := j.f.Close(); err == nil && e != nil {
		err = fmt.Errorf("feed: journal: %w", e)
	}
	return err
}
