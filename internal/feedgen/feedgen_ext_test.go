package feedgen_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/feedgen"
)

func TestJSONL(t *testing.T) {
	for _, large := range []bool{false, true} {
		data := feedgen.JSONL(3, large)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			var op struct {
				Put    string
				Fields map[string]any
			}
			if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
				t.Fatalf("large=%v line %d: %v: %s", large, n, err, sc.Bytes())
			}
			if want := fmt.Sprintf("id:ns:music::d%d", n); op.Put != want {
				t.Errorf("large=%v line %d: put %q, want %q", large, n, op.Put, want)
			}
			if op.Fields["title"] != "A Head Full of Dreams" {
				t.Errorf("large=%v line %d: fields %v", large, n, op.Fields)
			}
			n++
		}
		if n != 3 {
			t.Errorf("large=%v: %d lines, want 3", large, n)
		}
	}
}

func TestVectorFields(t *testing.T) {
	var f struct {
		Embedding struct{ Values []float64 }
	}
	b := feedgen.VectorFields()
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Embedding.Values) != 384 {
		t.Fatalf("%d values, want 384", len(f.Embedding.Values))
	}
	if f.Embedding.Values[0] != -0.5 || f.Embedding.Values[97] != -0.5 {
		t.Errorf("values[0], values[97] = %v, %v, want -0.5 (the values repeat every 97)", f.Embedding.Values[0], f.Embedding.Values[97])
	}
	if len(b) < 3500 || len(b) > 4500 {
		t.Errorf("%d bytes, want about 4 KB", len(b))
	}
	if !bytes.Equal(feedgen.Fields(true), b) || !bytes.Equal(feedgen.Fields(false), feedgen.SmallFields()) {
		t.Error("Fields(large) is not VectorFields / SmallFields")
	}
}

func TestSinkHandler(t *testing.T) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/document/v1/ns/music/docid/d7", strings.NewReader(`{"fields":{}}`))
	feedgen.SinkHandler().ServeHTTP(rec, req)
	var answer struct{ PathID, ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || rec.Code != http.StatusOK || answer.ID == "" || answer.PathID == "" {
		t.Errorf("%d %s (%v), want 200 and a put answer", rec.Code, rec.Body, err)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if n, _ := req.Body.Read(make([]byte, 1)); n != 0 {
		t.Error("the request body was not read")
	}
}
