// Package docid reads document IDs with the rules of Vespa's server-side
// parser (IdString), independently of the SDK's own parser.
package docid

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ID is a parsed document ID, as the server-side parser reads it. It is an
// independent re-implementation of Vespa's IdString rules (see the package doc
// on why vespatest does not share code with the SDK).
type ID struct {
	Full      string // canonical text, id:ns:type:kv:user
	Namespace string
	DocType   string
	HasNumber bool
	Number    int64
	HasGroup  bool
	Group     string
	User      string
}

const (
	maxIDLength       = 65536
	maxIDPrefixLength = 0xff00
)

// Parse parses s with the server's rules and returns Vespa's error text on failure.
func Parse(s string) (ID, error) {
	if len(s) > maxIDLength {
		return ID{}, fmt.Errorf("Document id length %d is longer than max length of %d", utf16Len(s), maxIDLength)
	}
	if cp, ok := illegalCodePoint(s); ok {
		return ID{}, fmt.Errorf("Unparseable id '%s': Contains illegal code point 0x%X", s, cp)
	}
	scheme, rest, found := strings.Cut(s, ":")
	if !found {
		return ID{}, fmt.Errorf("Unparseable id '%s': Scheme missing", s)
	}
	if scheme != "id" {
		return ID{}, fmt.Errorf("Unknown id scheme '%s'", scheme)
	}
	ns, rest, found := strings.Cut(rest, ":")
	if !found {
		return ID{}, fmt.Errorf("Unparseable id '%s': Namespace missing", s)
	}
	typ, rest, found := strings.Cut(rest, ":")
	if !found {
		return ID{}, fmt.Errorf("Unparseable id '%s': Document type missing", s)
	}
	kv, user, found := strings.Cut(rest, ":")
	if !found {
		return ID{}, fmt.Errorf("Unparseable id '%s': Key/value section missing", s)
	}
	id := ID{Namespace: ns, DocType: typ, User: user}
	for pair := range strings.SplitSeq(kv, ",") {
		if pair == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		switch {
		case ok && k == "n":
			if v == "" {
				return ID{}, fmt.Errorf("ID location value for 'n=' key is empty")
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return ID{}, fmt.Errorf("For input string: \"%s\"", v)
			}
			id.HasNumber, id.Number = true, n
		case ok && k == "g":
			if v == "" {
				return ID{}, fmt.Errorf("ID location value for 'g=' key is empty")
			}
			id.HasGroup, id.Group = true, v
		default:
			return ID{}, fmt.Errorf("Illegal key-value pair '%s'", pair)
		}
	}
	if id.HasNumber && id.HasGroup {
		return ID{}, fmt.Errorf("Illegal key combination in %s", kv)
	}
	prefix := "id:" + ns + ":" + typ + ":" + id.kvText() + ":"
	if len(prefix) >= maxIDPrefixLength {
		return ID{}, fmt.Errorf("Document id prior to the namespace specific part, %d, is longer than %d id: %s", len(prefix), maxIDPrefixLength, s[:min(len(s), 256)])
	}
	id.Full = prefix + user
	return id, nil
}

func (id ID) kvText() string {
	switch {
	case id.HasNumber:
		return "n=" + strconv.FormatInt(id.Number, 10)
	case id.HasGroup:
		return "g=" + id.Group
	}
	return ""
}

// Location returns the value that places the document in a bucket: the number,
// a hash of the group, or a hash of the whole ID, so that documents of one group
// or number share a bucket as in Vespa.
func (id ID) Location() uint64 {
	switch {
	case id.HasNumber:
		return uint64(id.Number) //nolint:gosec // G115: Vespa takes the location bits of n= as they are, sign included
	case id.HasGroup:
		return fnv64(id.Group)
	}
	return fnv64(id.Full)
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
		if !IsTextRune(r) {
			return r, true
		}
		i += size
	}
	return 0, false
}

func IsTextRune(r rune) bool {
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
