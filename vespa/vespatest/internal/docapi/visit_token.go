package docapi

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/govespa/govespa/vespa/vespatest/internal/store"
)

// A continuation token is the position of a visit: the next bucket to read
// in the visit's slice. Buckets are read whole and in order, and documents
// never move between buckets, so a document present for a whole visit is
// returned exactly once across its pages. The token is URL-safe base64 of
// a tag, the slicing, and the position.
type visitToken struct {
	slices, sliceID uint32
	next            uint32 // next bucket to read
}

var tokenTag = [4]byte{'v', 't', 'k', 1}

func (t visitToken) String() string {
	b := make([]byte, 16)
	copy(b, tokenTag[:])
	binary.BigEndian.PutUint32(b[4:], t.slices)
	binary.BigEndian.PutUint32(b[8:], t.sliceID)
	binary.BigEndian.PutUint32(b[12:], t.next)
	return base64.URLEncoding.EncodeToString(b)
}

var errBadToken = errors.New("bad continuation token")

func parseVisitToken(s string) (visitToken, error) {
	b, err := base64.URLEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.RawURLEncoding.DecodeString(s); err != nil {
			return visitToken{}, errBadToken
		}
	}
	if len(b) != 16 || [4]byte(b[:4]) != tokenTag {
		return visitToken{}, errBadToken
	}
	t := visitToken{
		slices:  binary.BigEndian.Uint32(b[4:]),
		sliceID: binary.BigEndian.Uint32(b[8:]),
		next:    binary.BigEndian.Uint32(b[12:]),
	}
	if t.slices == 0 || t.sliceID >= t.slices || t.next > store.BucketCount {
		return visitToken{}, errBadToken
	}
	return t, nil
}

// nextBucket returns the first bucket at or after from in the slice, or
// bucketCount when the slice has none left.
func (t visitToken) nextBucket(from uint32) uint32 {
	for b := from; b < store.BucketCount; b++ {
		if b%t.slices == t.sliceID {
			return b
		}
	}
	return store.BucketCount
}

// percent is the share of the slice's buckets already read.
func (t visitToken) percent() float64 {
	total, done := 0, 0
	for b := t.sliceID; b < store.BucketCount; b += t.slices {
		total++
		if b < t.next {
			done++
		}
	}
	if total == 0 {
		return 100
	}
	return 100 * float64(done) / float64(total)
}

func formatPercent(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	for _, c := range s {
		if c == '.' {
			return s
		}
	}
	return s + ".0"
}
