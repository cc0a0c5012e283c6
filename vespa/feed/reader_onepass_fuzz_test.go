package feed

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// readTrace is everything a reader yields, for comparing two readers.
type readTrace struct {
	ops  []rawOp
	errs []ParseError
}

// traceReader reads every operation and error of in, through the one-pass
// scan or (framed) the framing path only.
func traceReader(t *testing.T, in io.Reader, framed bool, maxOp int) readTrace {
	t.Helper()
	rd := NewReader(in, ReaderConfig{Source: "f", MaxOperationBytes: maxOp})
	rd.framedOnly = framed
	var tr readTrace
	for range 1_000_000 {
		op, err := rd.next()
		if errors.Is(err, io.EOF) {
			return tr
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("next: %v", err)
			}
			tr.errs = append(tr.errs, *pe)
			continue
		}
		tr.ops = append(tr.ops, op)
	}
	t.Fatal("reader did not end")
	return tr
}

// chunkReader returns at most n bytes per read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// checkScanMatchesEncodingJSON checks the one-pass scan of b (which starts
// with '{') against encoding/json, which reads the first JSON value of b with
// the scanner json.Valid uses, and against decodeOperation.
func checkScanMatchesEncodingJSON(t *testing.T, b []byte) {
	t.Helper()
	var s opScanner
	st, n, lines, op := s.scan(b)
	dec := json.NewDecoder(bytes.NewReader(b))
	var first json.RawMessage
	err := dec.Decode(&first)
	var se *json.SyntaxError
	switch {
	case err == nil:
		if st != scanOK && st != scanNotOp {
			t.Fatalf("%q: encoding/json reads a %d-byte object, the scan says %d", b, len(first), st)
		}
		if n != len(first) || !json.Valid(b[:n]) {
			t.Fatalf("%q: the scan ends the object at %d, encoding/json at %d", b, n, len(first))
		}
		if lines != bytes.Count(b[:n], []byte("\n")) {
			t.Fatalf("%q: %d newlines counted", b, lines)
		}
	case errors.As(err, &se):
		if st != scanInvalid {
			t.Fatalf("%q: encoding/json says %v, the scan says %d", b, err, st)
		}
		return
	case errors.Is(err, io.ErrUnexpectedEOF):
		if st != scanMore {
			t.Fatalf("%q: encoding/json says %v, the scan says %d", b, err, st)
		}
		return
	default:
		t.Fatalf("%q: encoding/json: %v", b, err)
	}
	// A valid object: the scan reads the operation decodeOperation reads,
	// and fails where it fails.
	old, oldErr := decodeOperation(b[:n])
	if (oldErr == nil) != (st == scanOK) {
		t.Fatalf("%q: decodeOperation says %v, the scan says %d", b, oldErr, st)
	}
	if st != scanOK {
		return
	}
	if !reflect.DeepEqual(old, op) {
		t.Fatalf("%q: the scan reads %+v, decodeOperation %+v", b, op, old)
	}
	// And what it reads is what encoding/json decodes.
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b[:n], &obj); err != nil {
		t.Fatal(err)
	}
	str := func(key, got string) {
		var want string
		if err := json.Unmarshal(obj[key], &want); err != nil {
			t.Fatalf("%q: %s: %v", b, key, err)
		}
		// Without escapes the bytes are kept as they are, so that invalid
		// UTF-8 in an ID is reported rather than replaced.
		if got != want && (utf8.ValidString(got) || bytes.Contains(obj[key], []byte(`\`))) {
			t.Fatalf("%q: %s %q, encoding/json decodes %q", b, key, got, want)
		}
	}
	key := op.kind.String()
	if _, ok := obj[key]; !ok && op.kind == kindPut {
		key = "id"
	}
	str(key, op.id)
	if c, ok := obj["condition"]; ok && string(c) != "null" {
		str("condition", op.condition)
	}
	var create bool
	if c, ok := obj["create"]; ok {
		if err := json.Unmarshal(c, &create); err != nil {
			t.Fatal(err)
		}
	}
	if create != op.create {
		t.Fatalf("%q: create %v", b, op.create)
	}
	if f, ok := obj["fields"]; ok {
		if want := fieldsPrefix + string(f) + fieldsSuffix; string(op.body) != want {
			t.Fatalf("%q: body %q, want %q", b, op.body, want)
		}
	} else if op.body != nil {
		t.Fatalf("%q: body %q without fields", b, op.body)
	}
}

var onePassSeeds = []string{
	`{"put":"id:a:b::1","fields":{"x":[1,-2.5e+3,0,true,false,null,"s\u00e9\n",{}]}}`,
	`{"update":"id:a:b::u","create":true,"condition":"a==1","fields":{"t":{"assign":[1,2]}}}`,
	`{"remove":"id:a:b::r","condition":null,"create":false}`,
	`{"p\u0075t":"id:a:b::e","fields":{}}`, `{"id":"id:a:b::\"q\"","fields":{}}`,
	"{\n\"put\": \"id:a:b::n\" ,\r\n\t\"fields\" : { \"a\" : [ ] } \n}",
	`{"put":"id:a:b::1","fields":{"x":01}}`, `{"put":"id:a:b::1","fields":{"x":1.}}`,
	`{"put":"id:a:b::1","fields":{"x":-}}`, `{"put":"id:a:b::1","fields":{"x":1e}}`,
	`{"put":"id:a:b::1","fields":{"x":"\x"}}`, `{"put":"id:a:b::1","fields":{"x":"\u12g4"}}`,
	`{"put":"id:a:b::1","fields":{"x":[1,]}}`, `{"put":"id:a:b::1","fields":{"x":{"a":1,}}}`,
	`{"put":"id:a:b::1","fields":{"x":[}]}`, `{"put":"id:a:b::1","fields":{"x":tru}}`,
	`{"put":"id:a:b::1","fields":{"x":"a` + "\x01" + `"}}`, `{"put":"id:a:b::1","fields":{"x":1}`,
	`{"put":"id:a:b::1","fields":{},"fields":{}}`, `{"put":"","fields":{}}`, `{"remove":"id:a:b::1","fields":{}}`,
	`{"put":"id:a:b::1"}`, `{"put":1,"fields":{}}`, `{"put":"id:a:b::1","create":1,"fields":{}}`,
	`{"put":"id:a:b::1","condition":true,"fields":{}}`, `{"put":"id:a:b::1","fields":[]}`,
	"{\"put\":\"id:a:b::\xff\",\"fields\":{}}", `{}`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`,
	strings.Repeat("[", 20) + strings.Repeat("]", 20),
	`{"put":"id:a:b::1","fields":{"d":` + strings.Repeat("[", maxNestingDepth-2) + strings.Repeat("]", maxNestingDepth-2) + `}}`,
	`{"put":"id:a:b::1","fields":{"d":` + strings.Repeat("[", maxNestingDepth-1) + strings.Repeat("]", maxNestingDepth-1) + `}}`,
}

// FuzzReaderOnePass checks the one-pass scan against encoding/json (it
// accepts exactly what json.Valid accepts for the object, and reads the
// operation as encoding/json and decodeOperation decode it), and the whole
// reader against its framing path: the same operations and the same errors,
// read whole and in small reads.
func FuzzReaderOnePass(f *testing.F) {
	for _, s := range append(onePassSeeds, fuzzSeeds...) {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, chunk uint8) {
		if strings.HasPrefix(s, "{") {
			checkScanMatchesEncodingJSON(t, []byte(s))
		}
		good := `{"put":"id:a:b::g","fields":{"n":[1,2]}}`
		for _, in := range []string{
			s,
			good + "\n" + s + "\n" + good + "\n",
			"[" + good + ",\n" + s + "\n]",
		} {
			for _, maxOp := range []int{0, 64} {
				want := traceReader(t, strings.NewReader(in), true, maxOp)
				var r io.Reader = strings.NewReader(in)
				if chunk > 0 {
					r = chunkReader{r, int(chunk)}
				}
				got := traceReader(t, r, false, maxOp)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q (reads of %d, limit %d):\none pass %+v\nframed   %+v", in, chunk, maxOp, got, want)
				}
			}
		}
	})
}
