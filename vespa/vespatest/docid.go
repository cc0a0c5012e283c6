package vespatest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// docID is a parsed document ID, as the server-side parser reads it. It is an
// independent re-implementation of Vespa's IdString rules (see the package doc
// on why vespatest does not share code with the SDK).
type docID struct {
	full      string // canonical text, id:ns:type:kv:user
	namespace string
	docType   string
	hasNumber bool
	number    int64
	hasGroup  bool
	group     string
	user      string
}

const (
	maxIDLength       = 65536
	maxIDPrefixLength = 0xff00
)

// parseDocID parses s with the server's rules and returns Vespa's error text on failure.
func parseDocID(s string) (docID, error) {
	if len(s) > maxIDLength {
		return docID{}, fmt.Errorf("Document id length %d is longer than max length of %d", utf16Len(s), maxIDLength)
	}
	if cp, ok := illegalCodePoint(s); ok {
		return docID{}, fmt.Errorf("Unparseable id '%s': Contains illegal code point 0x%X", s, cp)
	}
	scheme, rest, found := strings.Cut(s, ":")
	if !found {
		return docID{}, fmt.Errorf("Unparseable id '%s': Scheme missing", s)
	}
	if scheme != "id" {
		return docID{}, fmt.Errorf("Unknown id scheme '%s'", scheme)
	}
	ns, rest, found := strings.Cut(rest, ":")
	if !found {
		return docID{}, fmt.Errorf("Unparseable id '%s': Namespace missing", s)
	}
	typ, rest, found := strings.Cut(rest, ":")
	if !found {
		return docID{}, fmt.Errorf("Unparseable id '%s': Document type missing", s)
	}
	kv, user, found := strings.Cut(rest, ":")
	if !found {
		return docID{}, fmt.Errorf("Unparseable id '%s': Key/value section missing", s)
	}
	id := docID{namespace: ns, docType: typ, user: user}
	for pair := range strings.SplitSeq(kv, ",") {
		if pair == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		switch {
		case ok && k == "n":
			if v == "" {
				return docID{}, fmt.Errorf("ID location value for 'n=' key is empty")
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return docID{}, fmt.Errorf("For input string: \"%s\"", v)
			}
			id.hasNumber, id.number = true, n
		case ok && k == "g":
			if v == "" {
				return docID{}, fmt.Errorf("ID location value for 'g=' key is empty")
			}
			id.hasGroup, id.group = true, v
		default:
			return docID{}, fmt.Errorf("Illegal key-value pair '%s'", pair)
		}
	}
	if id.hasNumber && id.hasGroup {
		return docID{}, fmt.Errorf("Illegal key combination in %s", kv)
	}
	prefix := "id:" + ns + ":" + typ + ":" + id.kvText() + ":"
	if len(prefix) >= maxIDPrefixLength {
		return docID{}, fmt.Errorf("Document id prior to the namespace specific part, %d, is longer than %d id: %s", len(prefix), maxIDPrefixLength, s[:min(len(s), 256)])
	}
	id.full = prefix + user
	return id, nil
}

func (id docID) kvText() string {
	switch {
	case id.hasNumber:
		return "n=" + strconv.FormatInt(id.number, 10)
	case id.hasGroup:
		return "g=" + id.group
	}
	return ""
}

// location returns the value that places the document in a bucket: the number,
// a hash of the group, or a hash of the whole ID, so that documents of one group
// or number share a bucket as in Vespa.
func (id docID) location() uint64 {
	switch {
	case id.hasNumber:
		return uint64(id.number) //nolint:gosec // G115: Vespa takes the location bits of n= as they are, sign included
	case id.hasGroup:
		return fnv64(id.group)
	}
	return fnv64(id.full)
}

func fnv64(s string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	// Mix the result so that sequential numbers spread over buckets.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// illegalCodePoint reports the first code point Vespa does not accept in text.
func illegalCodePoint(s string) (rune, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return 0xFFFD, true
		}
		if !isTextRune(r) {
			return r, true
		}
		i += size
	}
	return 0, false
}

func isTextRune(r rune) bool {
	switch {
	case r < 0x20:
		return r == '\t' || r == '\n' || r == '\r'
	case r >= 0xFDD0 && r <= 0xFDDF:
		return false
	case r&0xFFFE == 0xFFFE:
		return false
	}
	return true
}
