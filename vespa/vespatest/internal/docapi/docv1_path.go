package docapi

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
)

// route identifies one of the seven /document/v1 path patterns.
type route int

const (
	routeRoot       route = iota + 1 // /document/v1/
	routeDocidVisit                  // /document/v1/{ns}/{type}/docid/
	routeGroupVisit                  // /document/v1/{ns}/{type}/group/{group}/
	routeNumVisit                    // /document/v1/{ns}/{type}/number/{number}/
	routeDocid                       // /document/v1/{ns}/{type}/docid/{*}
	routeGroup                       // /document/v1/{ns}/{type}/group/{group}/{*}
	routeNumber                      // /document/v1/{ns}/{type}/number/{number}/{*}
)

const availablePaths = "/document/v1/\n" +
	"/document/v1/{namespace}/{documentType}/docid/\n" +
	"/document/v1/{namespace}/{documentType}/group/{group}/\n" +
	"/document/v1/{namespace}/{documentType}/number/{number}/\n" +
	"/document/v1/{namespace}/{documentType}/docid/{*}\n" +
	"/document/v1/{namespace}/{documentType}/group/{group}/{*}\n" +
	"/document/v1/{namespace}/{documentType}/number/{number}/{*}"

// docPath is a matched /document/v1 path.
type docPath struct {
	route     route
	namespace string
	docType   string
	hasGroup  bool
	group     string
	hasNumber bool
	number    uint64
	rest      string // the user-specific part, joined with "/"
}

func (r route) isDocument() bool { return r >= routeDocid }

// allowed lists the methods of a route, in JDisc's method order.
func (r route) allowed() []string {
	if r == routeRoot {
		return []string{"GET", "POST", "DELETE"}
	}
	return []string{"GET", "POST", "PUT", "DELETE"}
}

// errNoRoute marks a path that matches no pattern (404).
var errNoRoute = errors.New("no route")

// formDecode decodes one path segment as Java's URLDecoder does: %XX escapes
// and '+' as a space.
func formDecode(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("URLDecoder: Incomplete trailing escape (%%) pattern")
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return "", fmt.Errorf("URLDecoder: Illegal hex characters in escape (%%) pattern - Error at index 0 in: \"%s\"", s[i+1:i+3])
			}
			b.WriteByte(hi<<4 | lo)
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	if !utf8.ValidString(out) {
		out = strings.ToValidUTF8(out, "\uFFFD")
	}
	return out, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseDocPath matches a raw path starting with /document/v1 against the route
// table. Errors other than errNoRoute are 400s with the error text as message.
func parseDocPath(raw string) (docPath, error) {
	rest := strings.TrimPrefix(raw, "/document/v1")
	if rest != "" && rest[0] != '/' {
		return docPath{}, errNoRoute
	}
	rest = strings.TrimPrefix(rest, "/")
	rest = strings.TrimSuffix(rest, "/")
	var segs []string
	if rest != "" {
		for s := range strings.SplitSeq(rest, "/") {
			d, err := formDecode(s)
			if err != nil {
				return docPath{}, err
			}
			if d == "" || d == "." || d == ".." {
				return docPath{}, fmt.Errorf("path segments cannot be \"\", \".\", or \"..\", but got: '%s'", d)
			}
			segs = append(segs, d)
		}
	}
	if len(segs) == 0 {
		return docPath{route: routeRoot}, nil
	}
	if len(segs) < 3 {
		return docPath{}, errNoRoute
	}
	p := docPath{namespace: segs[0], docType: segs[1]}
	switch segs[2] {
	case "docid":
		p.setRoute(segs[3:], routeDocidVisit, routeDocid)
	case "group":
		if len(segs) < 4 {
			return docPath{}, errNoRoute
		}
		if err := checkGroup(segs[3]); err != nil {
			return docPath{}, err
		}
		p.hasGroup, p.group = true, segs[3]
		p.setRoute(segs[4:], routeGroupVisit, routeGroup)
	case "number":
		if len(segs) < 4 {
			return docPath{}, errNoRoute
		}
		n, err := parseUnsigned(segs[3])
		if err != nil {
			return docPath{}, fmt.Errorf("Failed parsing '%s': %w", segs[3], err)
		}
		p.hasNumber, p.number = true, n
		p.setRoute(segs[4:], routeNumVisit, routeNumber)
	default:
		return docPath{}, errNoRoute
	}
	return p, nil
}

// setRoute sets p's route from the segments after the selection part
// (docid, group/{g} or number/{n}): none is the visit route, more name a
// document whose user-specified part they are.
func (p *docPath) setRoute(rest []string, visit, document route) {
	if len(rest) == 0 {
		p.route = visit
		return
	}
	p.route, p.rest = document, strings.Join(rest, "/")
}

func checkGroup(g string) error {
	for _, r := range g {
		if !docid.IsTextRune(r) || r == utf8.RuneError {
			return fmt.Errorf("Illegal code point U%04X in group", r)
		}
	}
	return nil
}

// parseUnsigned mirrors Long.parseUnsignedLong's errors.
func parseUnsigned(s string) (uint64, error) {
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("Illegal leading minus sign on unsigned string %s.", s)
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64)
	if err != nil {
		if v, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10); ok && v.Sign() > 0 {
			return 0, fmt.Errorf("String value %s exceeds range of unsigned long.", s)
		}
		return 0, fmt.Errorf("For input string: \"%s\"", s)
	}
	return n, nil
}

// documentID builds the document ID the server builds from a document path.
func (p docPath) documentID() (docid.ID, error) {
	kv := ""
	switch {
	case p.hasNumber:
		// Long.parseLong on the unsigned text: values above int64 fail.
		if p.number > 1<<63-1 {
			return docid.ID{}, fmt.Errorf("For input string: \"%d\"", p.number)
		}
		kv = "n=" + strconv.FormatUint(p.number, 10)
	case p.hasGroup:
		kv = "g=" + p.group
	}
	return docid.Parse("id:" + p.namespace + ":" + p.docType + ":" + kv + ":" + p.rest)
}
