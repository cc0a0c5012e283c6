package models

import (
	"context"
	"errors"
	"fmt"
)

// PackBits binarizes v as Vespa's pack_bits does: a value above 0 is a 1 bit,
// anything else (0, negatives, NaN) a 0 bit; bits are packed eight to an int8
// cell in big-endian order (the first value is the most significant bit). A
// length that is not a multiple of 8 is padded with 0 bits.
func PackBits(v []float32) []int8 {
	out := make([]int8, (len(v)+7)/8)
	for i, x := range v {
		if x > 0 {
			out[i/8] |= packBit[i%8]
		}
	}
	return out
}

// packBit holds the int8 cell with only bit i set, most significant first:
// the first is 0x80, which as an int8 is -128.
var packBit = [8]int8{-128, 64, 32, 16, 8, 4, 2, 1}

// ErrDimensions is matched (errors.Is) by the error returned when an
// embedding's length differs from the configuration's Dimensions.
var ErrDimensions = errors.New("models: embedding has the wrong number of dimensions")

// TensorCells converts an embedding from this model into the cells of its tensor:
// the vector itself ([]float32) or, for CellBinary, its packed bits ([]int8).
// The result is the value of a query input, input.query(q), and, wrapped as
// {"values": cells}, of the embedding field in a document
// ([ModelConfig.FieldValue]). A vector whose length is not Dimensions is an
// error matching [ErrDimensions].
func (c ModelConfig) TensorCells(v []float32) (any, error) {
	if len(v) != c.Dimensions {
		return nil, fmt.Errorf("%w: got %d, model %q has %d", ErrDimensions, len(v), c.Name, c.Dimensions)
	}
	if c.cellType() == CellBinary {
		return PackBits(v), nil
	}
	return v, nil
}

// FieldValue returns the document-JSON value of an embedding for the
// embedding field: {"values": cells} (see [ModelConfig.TensorCells]), ready to put
// under "fields" in a put or to assign in an update.
func (c ModelConfig) FieldValue(v []float32) (map[string]any, error) {
	cells, err := c.TensorCells(v)
	if err != nil {
		return nil, err
	}
	return map[string]any{"values": cells}, nil
}

// FillEmbedding embeds text with e and stores the result in fields[field] as
// [ModelConfig.FieldValue] renders it, for applications that embed on the
// client side and feed the vectors. The text is passed to e as it is (add
// DocumentPrefix yourself if e needs it). On error, fields is unchanged.
func (c ModelConfig) FillEmbedding(ctx context.Context, e Embedder, fields map[string]any, field, text string) error {
	if fields == nil {
		return errors.New("models: FillEmbedding: nil fields map")
	}
	v, err := e.Embed(ctx, text)
	if err != nil {
		return err
	}
	val, err := c.FieldValue(v)
	if err != nil {
		return err
	}
	fields[field] = val
	return nil
}

// QueryCells embeds text with e and returns the cells of the query tensor
// ([ModelConfig.TensorCells]), the value of the query input (input.query(q)) of a
// nearestNeighbor query against the embedding field. The text is passed to e
// as it is (add QueryPrefix yourself if e needs it).
func (c ModelConfig) QueryCells(ctx context.Context, e Embedder, text string) (any, error) {
	v, err := e.Embed(ctx, text)
	if err != nil {
		return nil, err
	}
	return c.TensorCells(v)
}
