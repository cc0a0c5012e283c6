package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/govespa/govespa/vespa/models"
)

func TestPackBits(t *testing.T) {
	nan := float32(math.NaN())
	for _, tc := range []struct {
		in   []float32
		want []int8
	}{
		{[]float32{1, 0, 0, 0, 0, 0, 0, 0}, []int8{-128}},
		{[]float32{0, 0, 0, 0, 0, 0, 0, 0.5}, []int8{1}},
		{[]float32{1, 1, 1, 1, 1, 1, 1, 1, -1, 2, 0, 0, 0, 0, 0, 3}, []int8{-1, 0b01000001}},
		{[]float32{-0.1, nan, 0, 1}, []int8{0b00010000}},
		{nil, []int8{}},
	} {
		if got := models.PackBits(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("PackBits(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestFieldValue(t *testing.T) {
	c := models.E5SmallV2()
	c.Dimensions = 3
	v, err := c.FieldValue([]float32{0.5, -1, 2})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"values":[0.5,-1,2]}` {
		t.Errorf("FieldValue = %s", b)
	}
	if _, err := c.FieldValue([]float32{1}); !errors.Is(err, models.ErrDimensions) {
		t.Errorf("FieldValue of the wrong length = %v, want ErrDimensions", err)
	}
	c.Dimensions, c.CellType = 16, models.CellBinary
	v, err = c.FieldValue([]float32{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(v)
	if string(b) != `{"values":[-127,0]}` {
		t.Errorf("binary FieldValue = %s", b)
	}
}

func TestFillEmbedding(t *testing.T) {
	c := models.E5SmallV2()
	c.Dimensions = 2
	e := models.EmbedFunc(func(_ context.Context, s string) ([]float32, error) {
		if s == "fail" {
			return nil, errFlaky
		}
		return []float32{1, float32(len(s))}, nil
	})
	fields := map[string]any{"text": "abc"}
	if err := c.FillEmbedding(t.Context(), e, fields, "embedding", "abc"); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(fields)
	if string(b) != `{"embedding":{"values":[1,3]},"text":"abc"}` {
		t.Errorf("fields = %s", b)
	}
	if err := c.FillEmbedding(t.Context(), e, fields, "other", "fail"); !errors.Is(err, errFlaky) {
		t.Errorf("FillEmbedding = %v, want errFlaky", err)
	}
	if _, ok := fields["other"]; ok {
		t.Error("a failed FillEmbedding changed the map")
	}
	if err := c.FillEmbedding(t.Context(), e, nil, "embedding", "abc"); err == nil {
		t.Error("FillEmbedding into a nil map succeeded")
	}
}

func TestQueryCells(t *testing.T) {
	c := models.E5SmallV2()
	c.Dimensions = 2
	e := models.EmbedFunc(func(context.Context, string) ([]float32, error) { return []float32{0.25, 0.75}, nil })
	cells, err := c.QueryCells(t.Context(), e, "q")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := cells.([]float32); !ok || !slices.Equal(got, []float32{0.25, 0.75}) {
		t.Errorf("QueryCells = %#v", cells)
	}
}
