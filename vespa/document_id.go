package vespa

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// Limits of a document ID, as Vespa's own parser applies them. Lengths are
// counted in UTF-16 code units, as Vespa (Java) counts them.
const (
	// MaxDocumentIDLength is the longest document ID Vespa accepts.
	MaxDocumentIDLength = 65536
	// MaxDocumentIDPrefixLength bounds the part of an ID before the
	// user-specified part ("id:ns:type:n=1"): it must be shorter than this.
	MaxDocumentIDPrefixLength = 0xff00
)

// ErrInvalidDocumentID is matched (errors.Is) by every [*DocumentIDError].
var ErrInvalidDocumentID = errors.New("vespa: invalid document ID")

// DocumentIDError says why a document ID is invalid. Its text quotes the ID
// (shortened when very long).
type DocumentIDError struct {
	// ID is the text that was rejected, or the ID's String form.
	ID string
	// Reason says what is wrong.
	Reason string
}

// Error returns "vespa: invalid document ID "<id>": <reason>".
func (e *DocumentIDError) Error() string {
	return fmt.Sprintf("vespa: invalid document ID %s: %s", wire.QuoteShort(e.ID, 120), e.Reason)
}

// Is reports whether target is [ErrInvalidDocumentID].
func (e *DocumentIDError) Is(target error) bool { return target == ErrInvalidDocumentID }

// DocumentID is a Vespa document ID,
// id:<Namespace>:<DocType>:<n=Number | g=Group | empty>:<UserSpecific>.
//
// It is a plain comparable value. The zero value is not a valid ID; build one
// with [ParseDocumentID] or fill the fields and check it with
// [DocumentID.Validate]. At most one of HasNumber and Group may be set.
type DocumentID struct {
	// Namespace is free text that is part of the ID; it must not be empty.
	Namespace string
	// DocType is the document type (schema) name.
	DocType string
	// Number is the n= value, used when HasNumber is true. Vespa reads it as
	// a signed 64-bit integer and maps it to an unsigned one in paths.
	Number int64
	// HasNumber says the ID has an n= modifier.
	HasNumber bool
	// Group is the g= value; empty means no g= modifier.
	Group string
	// UserSpecific is everything after the fourth ':'; it may contain ':'
	// and '/'.
	UserSpecific string
}

// NewDocumentID returns the ID id:<namespace>:<docType>::<userSpecific>,
// validated as by [DocumentID.Validate].
func NewDocumentID(namespace, docType, userSpecific string) (DocumentID, error) {
	id := DocumentID{Namespace: namespace, DocType: docType, UserSpecific: userSpecific}
	return id, id.Validate()
}

// ParseDocumentID parses s by Vespa's rules: the scheme is "id"; the
// namespace is not empty; the key/value section is empty, n=<int64> or
// g=<group> (pairs separated by ','; empty pairs are skipped); the
// user-specified part is the rest and may contain ':'. The whole ID is at
// most [MaxDocumentIDLength] UTF-16 code units, the part before the
// user-specified part shorter than [MaxDocumentIDPrefixLength], and it must be
// valid text (no control characters other than tab, LF and CR, no
// non-characters, valid UTF-8).
//
// Unlike Vespa's server, which accepts them, ParseDocumentID also rejects an
// empty document type, an empty user-specified part (as Vespa's Go and Java
// clients do), a negative n= and parts that are "." or "..": such IDs cannot
// be addressed through /document/v1.
//
// The error is a [*DocumentIDError] quoting s.
func ParseDocumentID(s string) (DocumentID, error) {
	var id DocumentID
	if err := parseDocumentID(s, &id); err != nil {
		return DocumentID{}, err
	}
	if err := id.checkAddressable(); err != nil {
		return DocumentID{}, &DocumentIDError{ID: s, Reason: err.Error()}
	}
	return id, nil
}

// MustParseDocumentID is like [ParseDocumentID] but panics on an invalid ID.
// It is meant for constants in tests and examples.
func MustParseDocumentID(s string) DocumentID {
	id, err := ParseDocumentID(s)
	if err != nil {
		panic(err)
	}
	return id
}

func parseDocumentID(s string, id *DocumentID) error {
	bad := func(format string, args ...any) error {
		return &DocumentIDError{ID: s, Reason: fmt.Sprintf(format, args...)}
	}
	if n := utf16Len(s); n > MaxDocumentIDLength {
		return bad("length %d is longer than the maximum of %d", n, MaxDocumentIDLength)
	}
	if r, ok := illegalCodePoint(s); ok {
		if r == utf8.RuneError {
			return bad("not valid UTF-8")
		}
		return bad("contains illegal code point 0x%X", r)
	}
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return bad("scheme missing")
	}
	if scheme != "id" {
		return bad("unknown scheme %q, expected \"id\"", scheme)
	}
	ns, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("namespace missing")
	}
	if ns == "" {
		return bad("namespace must not be empty")
	}
	docType, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("document type missing")
	}
	kv, user, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("key/value section missing (an ID with no n= or g= looks like id:ns:type::key)")
	}
	if prefix := utf16Len(s) - utf16Len(user) - 1; prefix >= MaxDocumentIDPrefixLength {
		return bad("the part before the user-specified part is %d long, the limit is %d", prefix, MaxDocumentIDPrefixLength)
	}
	*id = DocumentID{Namespace: ns, DocType: docType, UserSpecific: user}
	for pair := range strings.SplitSeq(kv, ",") {
		key, value, ok := strings.Cut(pair, "=")
		if !ok {
			if pair == "" {
				continue
			}
			return bad("illegal key/value pair %q", pair)
		}
		if id.HasNumber || id.Group != "" {
			return bad("illegal key combination in %q: n= and g= are exclusive", kv)
		}
		switch key {
		case "n":
			if value == "" {
				return bad("the value of n= is empty")
			}
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return bad("the value of n= %q is not a 64-bit signed integer", value)
			}
			id.Number, id.HasNumber = n, true
		case "g":
			if value == "" {
				return bad("the value of g= is empty")
			}
			id.Group = value
		default:
			return bad("illegal key %q (only n= and g= exist)", key)
		}
	}
	return nil
}

// String returns the canonical text of the ID: id:ns:type::key,
// id:ns:type:n=N:key or id:ns:type:g=G:key.
func (id DocumentID) String() string {
	var b strings.Builder
	b.Grow(6 + len(id.Namespace) + len(id.DocType) + len(id.Group) + len(id.UserSpecific) + 22)
	b.WriteString("id:")
	b.WriteString(id.Namespace)
	b.WriteByte(':')
	b.WriteString(id.DocType)
	b.WriteByte(':')
	switch {
	case id.HasNumber:
		b.WriteString("n=")
		b.WriteString(strconv.FormatInt(id.Number, 10))
	case id.Group != "":
		b.WriteString("g=")
		b.WriteString(id.Group)
	}
	b.WriteByte(':')
	b.WriteString(id.UserSpecific)
	return b.String()
}

// IsZero reports whether id is the zero DocumentID.
func (id DocumentID) IsZero() bool { return id == DocumentID{} }

// Validate reports whether id is a valid ID that /document/v1 can address:
// its String form parses back to the same ID, and no part would be changed or
// rejected by the server's path decoding. The error is a [*DocumentIDError].
func (id DocumentID) Validate() error {
	s := id.String()
	var back DocumentID
	if err := parseDocumentID(s, &back); err != nil {
		return err
	}
	if back != id {
		reason := "its text does not parse back to the same ID"
		switch {
		case id.HasNumber && id.Group != "":
			reason = "n= and g= are exclusive"
		case strings.ContainsAny(id.Namespace, ":"):
			reason = "the namespace contains ':'"
		case strings.ContainsAny(id.DocType, ":"):
			reason = "the document type contains ':'"
		case strings.ContainsAny(id.Group, ":,"):
			reason = "the group contains ':' or ','"
		}
		return &DocumentIDError{ID: s, Reason: reason}
	}
	if err := id.checkAddressable(); err != nil {
		return &DocumentIDError{ID: s, Reason: err.Error()}
	}
	return nil
}

// checkAddressable rejects IDs that the server's path parsing cannot give
// back: empty, "." and ".." segments are refused, and an empty user part
// turns a document path into a visit path.
func (id DocumentID) checkAddressable() error {
	for _, p := range [...]struct{ name, v string }{
		{"namespace", id.Namespace}, {"document type", id.DocType}, {"user-specified part", id.UserSpecific},
	} {
		switch p.v {
		case "":
			return fmt.Errorf("the %s is empty", p.name)
		case ".", "..":
			return fmt.Errorf("the %s %q cannot be a /document/v1 path segment", p.name, p.v)
		}
	}
	if id.HasNumber && id.Number < 0 {
		// The path carries n as an unsigned number, which the server turns
		// back into "n=<unsigned>" and then fails to read as a signed one.
		return fmt.Errorf("n=%d is negative: only 0 to 2^63-1 can be addressed through /document/v1", id.Number)
	}
	if id.Group == "." || id.Group == ".." {
		return fmt.Errorf("the group %q cannot be a /document/v1 path segment", id.Group)
	}
	return nil
}

// Path returns the /document/v1 path of the ID:
// /document/v1/<ns>/<type>/docid/<key>, /document/v1/<ns>/<type>/number/<n>/<key>
// or /document/v1/<ns>/<type>/group/<g>/<key>.
//
// Each segment is percent-encoded ([EscapePathSegment]) so that the server,
// which form-decodes each segment, gives back exactly the original parts; a
// '/' in the key is sent as %2F. The number is written as Vespa's path parser
// reads it, unsigned.
//
// Path does not validate; see [DocumentID.Validate].
func (id DocumentID) Path() string {
	return string(id.appendPath(make([]byte, 0, 32+len(id.Namespace)+len(id.DocType)+len(id.Group)+len(id.UserSpecific)*3/2)))
}

func (id DocumentID) appendPath(b []byte) []byte {
	b = append(b, "/document/v1/"...)
	b = appendEscaped(b, id.Namespace)
	b = append(b, '/')
	b = appendEscaped(b, id.DocType)
	switch {
	case id.HasNumber:
		b = append(b, "/number/"...)
		b = strconv.AppendUint(b, uint64(id.Number), 10) //nolint:gosec // Vespa's path reads n unsigned: two's complement on purpose (Validate refuses n < 0)
		b = append(b, '/')
	case id.Group != "":
		b = append(b, "/group/"...)
		b = appendEscaped(b, id.Group)
		b = append(b, '/')
	default:
		b = append(b, "/docid/"...)
	}
	return appendEscaped(b, id.UserSpecific)
}

// EscapePathSegment percent-encodes every byte of s outside
// [A-Za-z0-9-._~], so that both url.PathUnescape and form decoding (which
// Vespa applies to each path segment, reading '+' as a space) give back s.
func EscapePathSegment(s string) string {
	if !needsEscape(s) {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)*3/2), s))
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			return true
		}
	}
	return false
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return b
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // range yields valid runes or U+FFFD: never -1
	}
	return n
}

// illegalCodePoint returns the first code point Vespa does not accept as
// text: control characters other than tab, LF and CR, the non-characters
// U+FDD0–U+FDDF and U+xFFFE/U+xFFFF of every plane; or utf8.RuneError for
// invalid UTF-8.
func illegalCodePoint(s string) (rune, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return r, true
			}
		case r < 0x20:
			if r != '\t' && r != '\n' && r != '\r' {
				return r, true
			}
		case r >= 0xFDD0 && r <= 0xFDDF, r&0xFFFE == 0xFFFE:
			return r, true
		}
	}
	return 0, false
}

// validateFast is the check of the hot path: it rejects what would make a
// wrong or unsendable path, without re-parsing the ID.
func (id DocumentID) validateFast() error {
	if err := id.checkAddressable(); err != nil {
		return &DocumentIDError{ID: id.String(), Reason: err.Error()}
	}
	if id.HasNumber && id.Group != "" {
		return &DocumentIDError{ID: id.String(), Reason: "n= and g= are exclusive"}
	}
	if strings.ContainsRune(id.Namespace, ':') || strings.ContainsRune(id.DocType, ':') || strings.ContainsAny(id.Group, ":,") {
		return &DocumentIDError{ID: id.String(), Reason: "a ':' in the namespace, type or group (or a ',' in the group) changes the ID"}
	}
	return nil
}
