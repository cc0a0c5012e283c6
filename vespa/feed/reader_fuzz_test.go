package feed

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// goodLine is a one-line operation whose ID ends in n.
func goodLine(n int) string {
	return `{"put":"id:ns:t::good` + strconv.Itoa(n) + `","fields":{"n":` + strconv.Itoa(n) + `}}`
}

// checkGoodSurvive asserts that every good operation of in was read, in order.
func checkGoodSurvive(t *testing.T, in string, nGood int) {
	t.Helper()
	ops, _ := readAll(t, strings.NewReader(in))
	next := 0
	for _, op := range ops {
		if next < nGood && op.id == "id:ns:t::good"+strconv.Itoa(next) {
			if want := `{"fields":{"n":` + strconv.Itoa(next) + `}}`; string(op.body) != want {
				t.Fatalf("good op %d has body %q", next, op.body)
			}
			next++
		}
		if op.kind == 0 || op.id == "" {
			t.Fatalf("op without kind or id: %+v", op)
		}
		if op.kind != kindRemove && !bytes.HasPrefix(op.body, []byte(fieldsPrefix)) {
			t.Fatalf("op without body: %+v", op)
		}
	}
	if next != nGood {
		t.Fatalf("only %d of %d good operations read from %q", next, nGood, in)
	}
}

var fuzzSeeds = []string{
	`{"put":"id:a:b::x","fields":{"x":"oops}}`,
	`{"put":"id:a:b::x","fields":{"x":1}`,
	`{"a":[`, `{"a":`, `{"a":1,`, `"`, `]`, `[`, `}`, `{"a":"\`, `{}`, `{"remove":"id:a:b::z"} {"x":[`,
	`{"update":"id:a:b::u","create":true,"condition":"a==1","fields":{"t":{"assign":[1,2]}}}`,
	"\x00\xff{", `{"id":"id:a:b::q","fields":{"s":"\u00e9\""}}`,
	"\xef\xbb\xbf{\"remove\":\"id:a:b::bom\"}", `{"put":"id:a:b::d","fields":{},"fields":{}}`,
}

func FuzzReaderJSONL(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, bad string) {
		// Anything at all must read without a panic or a hang.
		readAll(t, strings.NewReader(bad))
		// A bad line between good lines must not cost any good one.
		bad = strings.ReplaceAll(bad, "\n", " ")
		in := goodLine(0) + "\n" + bad + "\n" + goodLine(1) + "\n" + goodLine(2) + "\n"
		checkGoodSurvive(t, in, 3)
	})
}

func FuzzReaderJSONArray(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, bad string) {
		readAll(t, strings.NewReader("["+bad))
		bad = strings.ReplaceAll(bad, "\n", " ")
		in := "[\n" + goodLine(0) + ",\n" + bad + "\n,\n" + goodLine(1) + ",\n" + goodLine(2) + "\n]\n"
		checkGoodSurvive(t, in, 3)
	})
}
