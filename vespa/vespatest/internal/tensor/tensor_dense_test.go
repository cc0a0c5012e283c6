package tensor

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

func TestNormalizeVector_matchesTheGeneralTensorReader(t *testing.T) {
	tt, err := ParseType("tensor<float>(x[3])")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`[0.1, -2, 3e-3]`,
		` [0.1,-2,0.003] `,
		`{"values":[0.1,-2,0.003]}`,
		`{"type":"tensor<float>(x[3])","values":[0.1,-2,0.003]}`,
		`{"values":[0.1,-2,0.003],"type":"tensor<float>(x[3])"}`,
	} {
		fast, ok := tt.NormalizeVector([]byte(in))
		if !ok {
			t.Errorf("%s: fast path refused", in)
			continue
		}
		v, err := Parse(tt, json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if slow := v.Render(Short); !bytes.Equal(fast, slow) {
			t.Errorf("%s: fast %s, general %s", in, fast, slow)
		}
	}
}

func TestNormalizeVector_leavesOtherFormsToTheGeneralReader(t *testing.T) {
	tt, _ := ParseType("tensor<float>(x[3])")
	for _, in := range []string{
		`[1,2]`,     // wrong size: the general reader phrases the error
		`[1,2,3,4]`, // likewise
		`[[1,2,3]]`, // nested
		`[1,"2",3]`, // a string cell
		`{"cells":[{"address":{"x":"0"},"value":1}]}`,
		`{"values":"3f800000"}`, // hex
		`{"values":[1,2,3],"extra":1}`,
		`{"type":"tensor(x[3])"}`,
		`"[1,2,3]"`,
	} {
		if out, ok := tt.NormalizeVector([]byte(in)); ok {
			t.Errorf("%s: fast path took it: %s", in, out)
		}
	}
	mixed, _ := ParseType("tensor(x{},y[2])")
	if _, ok := mixed.NormalizeVector([]byte(`[1,2]`)); ok {
		t.Error("a mixed tensor took the vector fast path")
	}
}

// FuzzScanObject checks the fast object scanner against encoding/json: it
// accepts only valid JSON objects, and splits them into the same members.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"\u00e9\n","a":true}`,
		`{"a":-0.5e+3}`, `{"a":01}`, `{"a":1,}`, `{"a" 1}`, `{"\ud800":"x"}`, "{\"a\":\"\x01\"}", `[1]`, `{"a":1} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		obj, err := jsonx.ScanObject(raw)
		if err != nil {
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("scanned invalid JSON %q", raw)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("scanned %q, encoding/json: %v", raw, err)
		}
		if len(m) != len(obj) {
			t.Fatalf("%q: %d members, encoding/json %d", raw, len(obj), len(m))
		}
		for _, mem := range obj {
			if !bytes.Equal(bytes.TrimSpace(m[mem.Key]), mem.Val) {
				t.Fatalf("%q: member %q is %s, encoding/json %s", raw, mem.Key, mem.Val, m[mem.Key])
			}
		}
	})
}
