package feed

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/govespa/govespa/internal/testutil"
)

type feedFixture struct {
	Name               string `json:"name"`
	Format             string `json:"format"`
	Input              string `json:"input"`
	ExpectedOperations []struct {
		Operation string  `json:"operation"`
		ID        string  `json:"id"`
		Condition *string `json:"condition"`
		Create    *bool   `json:"create"`
		BodyRaw   *string `json:"body_raw"`
	} `json:"expected_operations"`
	ExpectedError *struct {
		AfterOperations int    `json:"after_operations"`
		Message         string `json:"message"`
	} `json:"expected_error"`
}

func loadFeedFixtures(t *testing.T) []feedFixture {
	t.Helper()
	b := testutil.ReadFixture(t, "feedfile.json")
	var cases []feedFixture
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// readAll reads every operation and error of input.
func readAll(t testing.TB, r io.Reader) (ops []rawOp, errs []*ParseError) {
	rd := NewReader(r, ReaderConfig{Source: "t"})
	for range 1_000_000 {
		op, err := rd.next()
		if errors.Is(err, io.EOF) {
			return ops, errs
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("next: %v", err)
			}
			errs = append(errs, pe)
			continue
		}
		ops = append(ops, op)
	}
	t.Fatal("reader did not end")
	return nil, nil
}

func TestReader_Fixtures(t *testing.T) {
	for _, c := range loadFeedFixtures(t) {
		if c.Name == "docv1-put-body-indexed-tensor-values" {
			continue // a /document/v1 request body, not a feed line
		}
		t.Run(c.Name, func(t *testing.T) {
			for _, chunked := range []bool{false, true} {
				var in io.Reader = strings.NewReader(c.Input)
				if chunked {
					in = iotest.OneByteReader(in)
				}
				ops, errs := readAll(t, in)
				if len(ops) != len(c.ExpectedOperations) {
					t.Fatalf("got %d operations, want %d (errors %v)", len(ops), len(c.ExpectedOperations), errs)
				}
				for i, want := range c.ExpectedOperations {
					got := ops[i]
					if got.kind.String() != want.Operation || got.id != want.ID {
						t.Errorf("op %d: got %s %s, want %s %s", i, got.kind, got.id, want.Operation, want.ID)
					}
					if want.Condition != nil && got.condition != *want.Condition {
						t.Errorf("op %d: condition %q, want %q", i, got.condition, *want.Condition)
					}
					if want.Create != nil && got.create != *want.Create {
						t.Errorf("op %d: create %v, want %v", i, got.create, *want.Create)
					}
					if want.BodyRaw != nil && string(got.body) != *want.BodyRaw {
						t.Errorf("op %d: body %q, want %q", i, got.body, *want.BodyRaw)
					}
					if want.BodyRaw == nil && want.Operation == "remove" && got.body != nil {
						t.Errorf("op %d: remove has body %q", i, got.body)
					}
				}
				if c.ExpectedError != nil && len(errs) == 0 {
					t.Errorf("want an error (%s), got none", c.ExpectedError.Message)
				}
				if c.ExpectedError == nil && len(errs) > 0 {
					t.Errorf("unexpected errors: %v", errs)
				}
			}
		})
	}
}

func TestReader_LinesAndOffsets(t *testing.T) {
	in := "{\"put\":\"id:a:b::1\",\"fields\":{}}\n\n  {\"remove\":\"id:a:b::2\"}\n{\n\"update\":\"id:a:b::3\",\n\"fields\":{\"f\":{\"assign\":1}}\n}\n{\"remove\":\"id:a:b::4\"}"
	ops, errs := readAll(t, strings.NewReader(in))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []struct {
		line int
		off  int64
	}{{1, 0}, {3, int64(strings.Index(in, "{\"remove\""))}, {4, int64(strings.Index(in, "{\n"))}, {8, int64(strings.LastIndex(in, "{"))}}
	if len(ops) != len(want) {
		t.Fatalf("got %d ops", len(ops))
	}
	for i, w := range want {
		if ops[i].line != w.line || ops[i].offset != w.off {
			t.Errorf("op %d (%s): line %d offset %d, want line %d offset %d", i, ops[i].id, ops[i].line, ops[i].offset, w.line, w.off)
		}
	}
}

func TestReader_BadLinesAreReportedAndSkipped(t *testing.T) {
	good := func(n string) string { return `{"put":"id:a:b::` + n + `","fields":{"x":"` + n + `"}}` }
	tests := []struct {
		name    string
		bad     string
		reason  string
		badLine int
		wantIDs string
	}{
		{"a missing quote", `{"put":"id:a:b::x","fields":{"x":"oops}}`, "newline inside a string", 2, ""},
		{"an unclosed object", `{"put":"id:a:b::x","fields":{"x":1}`, "not closed", 2, ""},
		{"an unclosed array value", `{"put":"id:a:b::x","fields":{"x":[`, "", 2, ""},
		{"a trailing comma", `{"put":"id:a:b::x","fields":{"x":1},`, "", 2, ""},
		{"junk", `this is not json`, "expected an operation object", 2, ""},
		{"a missing id", `{"fields":{}}`, "no document ID", 2, ""},
		{"an unknown key", `{"put":"id:a:b::x","fields":{},"colour":1}`, "unknown key", 2, ""},
		{"a bad token", `{"put":"id:a:b::x","fields":{"x":tru}}`, "invalid JSON", 2, ""},
		{"fields not an object", `{"put":"id:a:b::x","fields":[1]}`, "must be a JSON object", 2, ""},
		{"a duplicate fields key", `{"put":"id:a:b::x","fields":{"x":1},"fields":{"x":2}}`, `duplicate key "fields"`, 2, ""},
		{"a duplicate condition key", `{"put":"id:a:b::x","condition":"a","condition":"b","fields":{}}`, `duplicate key "condition"`, 2, ""},
		{"a duplicate create key", `{"update":"id:a:b::x","create":true,"create":false,"fields":{}}`, `duplicate key "create"`, 2, ""},
		{"a duplicate operation key", `{"put":"id:a:b::x","put":"id:a:b::y","fields":{}}`, "more than one of put", 2, ""},
		{"an extra closing brace", `{"put":"id:a:b::x","fields":{}}}`, "expected an operation object", 2, "id:a:b::1 id:a:b::x id:a:b::2 id:a:b::3"},
	}
	for _, tt := range tests {
		t.Run("after "+tt.name+" the next lines are read", func(t *testing.T) {
			in := good("1") + "\n" + tt.bad + "\n" + good("2") + "\n" + good("3") + "\n"
			ops, errs := readAll(t, strings.NewReader(in))
			var ids []string
			for _, op := range ops {
				ids = append(ids, op.id)
			}
			want := tt.wantIDs
			if want == "" {
				want = "id:a:b::1 id:a:b::2 id:a:b::3"
			}
			if strings.Join(ids, " ") != want {
				t.Errorf("ops %v, want %s", ids, want)
			}
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", errs)
			}
			if errs[0].Line != tt.badLine || !strings.Contains(errs[0].Reason, tt.reason) {
				t.Errorf("error %v, want line %d and %q", errs[0], tt.badLine, tt.reason)
			}
		})
	}
}

func TestReader_ArrayBadElementIsSkipped(t *testing.T) {
	in := "[\n{\"put\":\"id:a:b::1\",\"fields\":{}},\n{\"put\":\"id:a:b::2\",\"fields\":{\"x\":\"oops}},\n{\"put\":\"id:a:b::3\",\"fields\":{}}\n]\n"
	ops, errs := readAll(t, strings.NewReader(in))
	if len(ops) != 2 || ops[0].id != "id:a:b::1" || ops[1].id != "id:a:b::3" {
		t.Errorf("ops %+v", ops)
	}
	if len(errs) != 1 || errs[0].Line != 3 {
		t.Errorf("errors %v, want one on line 3", errs)
	}
}

func TestReader_ArrayNotClosed(t *testing.T) {
	_, errs := readAll(t, strings.NewReader(`[{"remove":"id:a:b::1"}`))
	if len(errs) != 1 || !strings.Contains(errs[0].Reason, "not closed") {
		t.Errorf("errors %v", errs)
	}
}

func TestReader_LongLines(t *testing.T) {
	big := strings.Repeat("x", 3*readChunk+17)
	in := `{"put":"id:a:b::1","fields":{"s":"` + big + `"}}` + "\n" + `{"remove":"id:a:b::2"}`
	ops, errs := readAll(t, strings.NewReader(in))
	if len(errs) != 0 || len(ops) != 2 {
		t.Fatalf("ops %d errs %v", len(ops), errs)
	}
	if want := `{"fields":{"s":"` + big + `"}}`; string(ops[0].body) != want {
		t.Errorf("body of %d bytes, want %d", len(ops[0].body), len(want))
	}
	if ops[1].line != 2 || ops[1].offset != int64(strings.Index(in, "\n")+1) {
		t.Errorf("second op at line %d offset %d", ops[1].line, ops[1].offset)
	}
}

func TestReader_TooLarge(t *testing.T) {
	in := `{"put":"id:a:b::1","fields":{"s":"` + strings.Repeat("x", 1000) + `"}}` + "\n" + `{"remove":"id:a:b::2"}`
	rd := NewReader(strings.NewReader(in), ReaderConfig{MaxOperationBytes: 100})
	_, err := rd.next()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("first: %v", err)
	}
	op, err := rd.next()
	if err != nil || op.id != "id:a:b::2" {
		t.Fatalf("second: %v %v", op.id, err)
	}
}

func TestReader_EscapedID(t *testing.T) {
	ops, errs := readAll(t, strings.NewReader(`{"remove":"id:a:b::x\"y\u00e9"}`))
	if len(errs) != 0 || len(ops) != 1 || ops[0].id != "id:a:b::x\"yé" {
		t.Fatalf("ops %+v errs %v", ops, errs)
	}
}

func TestReader_LeadingBOMIsAccepted(t *testing.T) {
	for _, in := range []string{
		"\xef\xbb\xbf" + `{"put":"id:a:b::1","fields":{}}` + "\n" + `{"remove":"id:a:b::2"}` + "\n",
		"\xef\xbb\xbf" + `[{"put":"id:a:b::1","fields":{}},` + "\n" + `{"remove":"id:a:b::2"}]`,
		"\xef\xbb\xbf  \n" + `{"put":"id:a:b::1","fields":{}}` + "\n" + `{"remove":"id:a:b::2"}`,
	} {
		ops, errs := readAll(t, iotest.OneByteReader(strings.NewReader(in)))
		if len(errs) != 0 || len(ops) != 2 || ops[0].id != "id:a:b::1" || ops[1].id != "id:a:b::2" {
			t.Errorf("%q: ops %+v, errors %v", in, ops, errs)
		}
		if ops[0].offset < 3 {
			t.Errorf("%q: first offset %d does not count the BOM", in, ops[0].offset)
		}
	}
	// A BOM anywhere but at the start is content, and an error.
	_, errs := readAll(t, strings.NewReader(`{"remove":"id:a:b::1"}`+"\n\xef\xbb\xbf"+`{"remove":"id:a:b::2"}`+"\n"))
	if len(errs) != 1 || errs[0].Line != 2 {
		t.Errorf("a BOM on line 2: errors %v", errs)
	}
}
