package vespa

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
)

// A resume token is "v1." followed by the URL-safe base64 (unpadded) of a
// JSON object that records, for every slice the visit took, where it stands:
//
//	{"f":<fingerprint>,"n":<slices>,"s":[{"i":<slice id>,"b":"<space>","c":"<continuation>","k":<count>,"h":"<hashes>"},...]}
//
// There is one state per chain: a slice in a bucket space (b, "default" or
// "global"; absent for a visit with a type in its path). c is Vespa's continuation of the last page that was finished ("" before
// the first page), k how many documents from there on were already yielded,
// and h the 64-bit FNV-1a hashes of their IDs (8 bytes each, base64), so
// that a resumed visit skips exactly those documents even if Vespa ends its
// pages elsewhere or orders them differently the second time. A slice that
// is finished has "d":true. The fingerprint binds the token to the visit's
// selection: namespace, document type, cluster, bucket space, selection,
// timestamps, removes and slices.

const resumeTokenPrefix = "v1."

// maxResumeToken bounds the length of a token the decoder accepts (16 MiB).
const maxResumeToken = 16 << 20

// ErrInvalidResumeToken is matched (errors.Is) by every error about a resume
// token that cannot be decoded or does not belong to the visit it is given to.
var ErrInvalidResumeToken = errors.New("vespa: invalid resume token")

// resumeTokenError says why a resume token was rejected.
type resumeTokenError struct{ reason string }

func (e *resumeTokenError) Error() string        { return ErrInvalidResumeToken.Error() + ": " + e.reason }
func (e *resumeTokenError) Is(target error) bool { return target == ErrInvalidResumeToken }

func tokenErrorf(format string, args ...any) error {
	return &resumeTokenError{reason: fmt.Sprintf(format, args...)}
}

// sliceState is where one slice of a visit stands, as seen by the caller:
// the continuation the current page was fetched with and the hashes of the
// documents yielded since that point.
type sliceState struct {
	id    int
	space string // "" for a typed visit
	cont  string
	seen  []uint64
	done  bool
	// carry is set when the last page returned the continuation it was
	// fetched with: the next page starts where it did, so its documents
	// are checked against seen (transient, not in the token, whose seen
	// has the same effect on a resume).
	carry bool
}

// visitProgress is the decoded form of a resume token.
type visitProgress struct {
	fingerprint uint64
	slices      int
	states      []sliceState // sorted by (space, id), unique
}

type tokenJSON struct {
	F uint64      `json:"f"`
	N int         `json:"n"`
	S []sliceJSON `json:"s"`
}

type sliceJSON struct {
	I int    `json:"i"`
	B string `json:"b,omitempty"`
	C string `json:"c,omitempty"`
	K int    `json:"k,omitempty"`
	H []byte `json:"h,omitempty"`
	D bool   `json:"d,omitempty"`
}

// encode returns the token text of p.
func (p *visitProgress) encode() string {
	t := tokenJSON{F: p.fingerprint, N: p.slices, S: make([]sliceJSON, len(p.states))}
	for i, s := range p.states {
		js := sliceJSON{I: s.id, B: s.space, D: s.done}
		if !s.done {
			js.C, js.K = s.cont, len(s.seen)
			if len(s.seen) > 0 {
				js.H = make([]byte, 8*len(s.seen))
				for j, h := range s.seen {
					binary.BigEndian.PutUint64(js.H[8*j:], h)
				}
			}
		}
		t.S[i] = js
	}
	b, err := json.Marshal(t)
	if err != nil {
		panic("vespa: encoding a resume token: " + err.Error()) // unreachable: plain types only
	}
	return resumeTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeResumeToken parses a token made by encode. Errors match
// ErrInvalidResumeToken and say what is wrong, never quoting the token.
func decodeResumeToken(s string) (*visitProgress, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxResumeToken {
		return nil, tokenErrorf("longer than %d bytes", maxResumeToken)
	}
	rest, ok := strings.CutPrefix(s, resumeTokenPrefix)
	if !ok {
		if v, _, found := strings.Cut(s, "."); found && len(v) < 8 && strings.HasPrefix(v, "v") {
			return nil, tokenErrorf("version %q is not supported (this version of govespa reads v1)", v)
		}
		return nil, tokenErrorf(`it does not start with "v1."`)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(rest, "="))
	if err != nil {
		return nil, tokenErrorf("not URL-safe base64: %v", err)
	}
	var t tokenJSON
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, tokenErrorf("malformed content: %v", err)
	}
	if dec.More() {
		return nil, tokenErrorf("malformed content: trailing data")
	}
	if t.N < 1 || t.N > maxSlices {
		return nil, tokenErrorf("slices %d is not in [1, %d]", t.N, maxSlices)
	}
	if len(t.S) == 0 || len(t.S) > 2*t.N {
		return nil, tokenErrorf("%d slice states for %d slices", len(t.S), t.N)
	}
	p := &visitProgress{fingerprint: t.F, slices: t.N, states: make([]sliceState, len(t.S))}
	for i, js := range t.S {
		switch {
		case js.I < 0 || js.I >= t.N:
			return nil, tokenErrorf("slice id %d is not in [0, %d)", js.I, t.N)
		case js.B != "" && js.B != BucketSpaceDefault && js.B != BucketSpaceGlobal:
			return nil, tokenErrorf("slice %d: unknown bucket space %q", js.I, js.B)
		case i > 0 && compareChains(visitChain{t.S[i-1].B, t.S[i-1].I}, visitChain{js.B, js.I}) >= 0:
			return nil, tokenErrorf("slice ids are not sorted and unique")
		case i > 0 && (js.B == "") != (t.S[i-1].B == ""):
			return nil, tokenErrorf("slices with and without a bucket space")
		case js.K < 0 || len(js.H) != 8*js.K:
			return nil, tokenErrorf("slice %d: %d document hashes for a count of %d", js.I, len(js.H)/8, js.K)
		case js.D && (js.C != "" || js.K != 0):
			return nil, tokenErrorf("slice %d is finished but has a position", js.I)
		}
		st := sliceState{id: js.I, space: js.B, cont: js.C, done: js.D}
		if js.K > 0 {
			st.seen = make([]uint64, js.K)
			for j := range st.seen {
				st.seen[j] = binary.BigEndian.Uint64(js.H[8*j:])
			}
		}
		p.states[i] = st
	}
	return p, nil
}

// chains returns the chains p records, in order.
func (p *visitProgress) chains() []visitChain {
	chains := make([]visitChain, len(p.states))
	for i, s := range p.states {
		chains[i] = visitChain{space: s.space, slice: s.id}
	}
	return chains
}

// hashID is the hash of a document ID kept in resume tokens.
func hashID(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

// visitFingerprint hashes what decides which documents a visit yields:
// r's namespace, type, cluster, bucket space, selection, timestamp window
// (from and to in µs) and removes, and the number of slices. The parts
// added after the first version are hashed only when set, so that older
// tokens of visits without them still resume.
func visitFingerprint(r *VisitRequest, from, to int64, slices int) uint64 {
	h := fnv.New64a()
	parts := []string{r.Namespace, r.DocType, r.Cluster, r.Selection, fmt.Sprint(slices)}
	if r.BucketSpace != "" || from != 0 || to != 0 || r.IncludeRemoves {
		parts = append(parts, r.BucketSpace, fmt.Sprint(from), fmt.Sprint(to), fmt.Sprint(r.IncludeRemoves))
	}
	for _, s := range parts {
		_, _ = h.Write([]byte(s))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}
