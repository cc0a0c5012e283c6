package feed

import (
	"bufio"
	"bytes"
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
// offset. Give it to [Config.Journal]; when the same feed is run again after
// a crash or an interruption, [Feeder.Feed] and [Feeder.FeedReader] skip the
// operations it holds and feed the rest.
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
	acked   map[string][]int64 // sorted offsets per source, from earlier runs
	pending int
	line    []byte // the record being written, reused
	err     error  // the first write error
}

// OpenJournal opens (or creates) the journal file at path and loads what it
// holds. A torn last line, left by a crash mid-write, is ignored.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("feed: journal: %w", err)
	}
	j := &Journal{f: f, acked: map[string][]int64{}}
	if err := j.load(); err != nil {
		return nil, errors.Join(err, closeErr(f))
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return nil, errors.Join(fmt.Errorf("feed: journal: %w", err), closeErr(f))
	}
	j.w = bufio.NewWriterSize(f, 64<<10)
	return j, nil
}

// closeErr closes f and wraps its error, if any.
func closeErr(f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("feed: journal: %w", err)
	}
	return nil
}

// load reads the records of earlier runs.
func (j *Journal) load() error {
	sc := bufio.NewScanner(j.f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			continue
		}
		off, err := strconv.ParseInt(string(line[:sp]), 10, 64)
		if err != nil {
			continue
		}
		src, err := strconv.Unquote(string(line[sp+1:]))
		if err != nil {
			continue
		}
		j.acked[src] = append(j.acked[src], off)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("feed: journal: %w", err)
	}
	for src, offs := range j.acked {
		slices.Sort(offs)
		j.acked[src] = slices.Compact(offs)
	}
	return nil
}

// Acknowledged reports whether an earlier run recorded the operation of
// source at offset as acknowledged.
func (j *Journal) Acknowledged(source string, offset int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := slices.BinarySearch(j.acked[source], offset)
	return ok
}

// lastAcked returns the largest offset recorded for source by earlier runs,
// and false when there is none.
func (j *Journal) lastAcked(source string) (int64, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	offs := j.acked[source]
	if len(offs) == 0 {
		return 0, false
	}
	return offs[len(offs)-1], true
}

// record appends an acknowledged operation. A write error is kept: the
// journal records nothing more, and [Journal.Flush], [Journal.Close],
// [Journal.Err] and the feeder's Flush and Close return it.
func (j *Journal) record(source string, offset int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.w == nil || j.err != nil {
		return
	}
	b := strconv.AppendInt(j.line[:0], offset, 10)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, source)
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
	if j.w == nil {
		return errJournalClosed
	}
	j.flushLocked()
	return j.err
}

var errJournalClosed = errors.New("feed: journal closed")

// Close flushes the journal, syncs it to disk and closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.w == nil {
		return errJournalClosed
	}
	j.flushLocked()
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
