package models

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Pooling is how the hugging-face-embedder pools the token vectors of the
// ONNX model's output into one vector (Vespa's pooling-strategy).
type Pooling string

// The pooling strategies Vespa accepts. The zero value leaves Vespa's default,
// mean, in place.
const (
	PoolingMean Pooling = "mean"
	PoolingCLS  Pooling = "cls"
	PoolingNone Pooling = "none"
)

// CellType is the cell type of the embedding tensor stored in the schema.
type CellType string

// The cell types the hugging-face-embedder can write into. The zero value means
// CellFloat.
const (
	// CellFloat stores 32-bit floats: tensor<float>(x[d]).
	CellFloat CellType = "float"
	// CellBFloat16 stores 16-bit brain floats: half the memory of float.
	CellBFloat16 CellType = "bfloat16"
	// CellBinary binarizes the embedding: each dimension becomes one bit and
	// eight bits are packed into one int8 cell, so the field is
	// tensor<int8>(x[d/8]) and is compared with the hamming distance. The
	// hugging-face-embedder binarizes on its own when its destination has
	// int8 cells (Vespa 8.332.5 or later).
	CellBinary CellType = "int8"
)

// The distance metrics of an embedding field's attribute
// (https://docs.vespa.ai/en/reference/schemas/schemas.html#distance-metric).
const (
	DistanceAngular              = "angular"
	DistancePrenormalizedAngular = "prenormalized-angular"
	DistanceEuclidean            = "euclidean"
	DistanceDotProduct           = "dotproduct"
	DistanceHamming              = "hamming"
)

// ErrInvalidConfig is matched (errors.Is) by every error of
// [ModelConfig.Check]: a configuration Vespa would reject or that cannot work.
var ErrInvalidConfig = errors.New("models: invalid model configuration")

// ModelConfig describes one embedding model for Vespa's hugging-face-embedder:
// where its ONNX model and tokenizer come from, what it produces, and the
// settings the embedder needs to run it. It is a plain value; copy and adapt
// the predefined ones ([E5SmallV2], [Predefined]) freely.
//
// Empty or zero fields leave Vespa's defaults in place and are not written to
// services.xml. See https://docs.vespa.ai/en/reference/rag/embedding.html for
// the meaning of each setting.
type ModelConfig struct {
	// Name identifies the model, such as "e5-small-v2". It names the embedder
	// component unless ComponentID is set.
	Name string
	// ComponentID is the id of the embedder component in services.xml, used by
	// embed in schemas and queries. Empty: Name with every character outside
	// [a-zA-Z0-9_] replaced by '_' (see [ModelConfig.Component]).
	ComponentID string

	// ModelID is the id of the model on the Vespa Cloud model hub; on Vespa
	// Cloud it takes precedence over ModelURL. Optional.
	ModelID string
	// ModelURL is where Vespa downloads the ONNX transformer model from.
	ModelURL string
	// ModelPath is the ONNX model's path inside the application package, used
	// when neither ModelID (on Vespa Cloud) nor ModelURL applies.
	ModelPath string
	// TokenizerID is the Vespa Cloud model-hub id of the tokenizer. Optional.
	TokenizerID string
	// TokenizerURL is where Vespa downloads the tokenizer.json from.
	TokenizerURL string
	// TokenizerPath is tokenizer.json's path inside the application package.
	TokenizerPath string

	// Dimensions is the number of dimensions of the model's output vector.
	// For CellBinary it must be a multiple of 8; the field then has
	// Dimensions/8 int8 cells.
	Dimensions int
	// Pooling is the pooling strategy; empty: Vespa's default (mean).
	Pooling Pooling
	// Normalize makes the embedder normalize vectors to unit length, which
	// the prenormalized-angular distance requires. False: Vespa's default.
	Normalize bool
	// CellType is the cell type of the embedding field; empty: CellFloat.
	CellType CellType
	// DistanceMetric is the distance metric of the embedding field; empty:
	// hamming for CellBinary, prenormalized-angular when Normalize is set,
	// angular otherwise.
	DistanceMetric string
	// MaxTokens is the longest input, in tokens, the model accepts; longer
	// input is truncated. 0: Vespa's default (512).
	MaxTokens int

	// QueryPrefix is prepended to query text before tokenization, for models
	// trained with instructions (such as "query: " for E5).
	QueryPrefix string
	// DocumentPrefix is prepended to document text before tokenization.
	DocumentPrefix string

	// TransformerInputIDs is the name of the ONNX model's input-ids input;
	// empty: Vespa's default (input_ids).
	TransformerInputIDs string
	// TransformerAttentionMask is the name of the attention-mask input; empty:
	// Vespa's default (attention_mask).
	TransformerAttentionMask string
	// TransformerTokenTypeIDs is the name of the token-type-ids input; empty:
	// Vespa's default (token_type_ids), unless NoTokenTypeIDs is set.
	TransformerTokenTypeIDs string
	// NoTokenTypeIDs declares that the model takes no token-type-ids input
	// (written as an empty <transformer-token-type-ids/>).
	NoTokenTypeIDs bool
	// TransformerOutput is the name of the ONNX model's output; empty: Vespa's
	// default (last_hidden_state).
	TransformerOutput string

	// Source says where the values of a predefined configuration come from.
	// It is documentation and is never written anywhere.
	Source string
}

// componentIDPattern is what Vespa's indexing language and embed() accept as
// an embedder id without quoting.
var componentIDPattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]*$`)

// Component returns the embedder's component id: ComponentID, or else Name
// with every character outside [a-zA-Z0-9_] replaced by '_', runs of '_'
// collapsed, and "model_" put in front when it would not start with a letter.
func (c ModelConfig) Component() string {
	if c.ComponentID != "" {
		return c.ComponentID
	}
	var b strings.Builder
	lastUnderscore := false
	for _, r := range c.Name {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !ok {
			r = '_'
		}
		if r == '_' {
			if lastUnderscore {
				continue
			}
			lastUnderscore = true
		} else {
			lastUnderscore = false
		}
		b.WriteRune(r)
	}
	id := strings.Trim(b.String(), "_")
	if id == "" || !(id[0] >= 'a' && id[0] <= 'z' || id[0] >= 'A' && id[0] <= 'Z') {
		id = "model_" + id
	}
	return id
}

// cellType returns CellType with its default applied.
func (c ModelConfig) cellType() CellType {
	if c.CellType == "" {
		return CellFloat
	}
	return c.CellType
}

// CellCount returns the number of cells of the embedding tensor: Dimensions, or
// Dimensions/8 for CellBinary.
func (c ModelConfig) CellCount() int {
	if c.cellType() == CellBinary {
		return c.Dimensions / 8
	}
	return c.Dimensions
}

// TensorType returns the Vespa tensor type of the embedding, with the
// dimension named x, such as "tensor<float>(x[384])".
func (c ModelConfig) TensorType() string {
	return fmt.Sprintf("tensor<%s>(x[%d])", c.cellType(), c.CellCount())
}

// QueryTensorType returns the type of the query tensor compared with the
// embedding field: tensor<float> for float and bfloat16 fields (Vespa
// converts bfloat16 cells to float when it computes distances, so queries
// keep full precision) and tensor<int8>(x[d/8]) for binarized fields.
func (c ModelConfig) QueryTensorType() string {
	if c.cellType() == CellBinary {
		return c.TensorType()
	}
	return fmt.Sprintf("tensor<float>(x[%d])", c.CellCount())
}

// Distance returns the distance metric of the embedding field: DistanceMetric
// or its default (see the field's doc).
func (c ModelConfig) Distance() string {
	switch {
	case c.DistanceMetric != "":
		return c.DistanceMetric
	case c.cellType() == CellBinary:
		return DistanceHamming
	case c.Normalize:
		return DistancePrenormalizedAngular
	default:
		return DistanceAngular
	}
}

// Check reports, without any I/O, what is wrong with the configuration: a
// missing or malformed field, or a combination Vespa rejects. Every error it
// returns matches [ErrInvalidConfig]; several problems are joined.
func (c ModelConfig) Check() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...)))
	}
	if c.Name == "" && c.ComponentID == "" {
		bad("neither Name nor ComponentID is set")
	}
	if c.ComponentID != "" && !componentIDPattern.MatchString(c.ComponentID) {
		bad("component id %q must match [a-zA-Z][a-zA-Z0-9_]*", c.ComponentID)
	}
	if c.ModelID == "" && c.ModelURL == "" && c.ModelPath == "" {
		bad("model %q has no ModelID, ModelURL or ModelPath", c.Name)
	}
	if c.TokenizerID == "" && c.TokenizerURL == "" && c.TokenizerPath == "" && c.ModelID == "" {
		bad("model %q has no TokenizerID, TokenizerURL or TokenizerPath", c.Name)
	}
	for _, u := range []struct{ what, s string }{{"ModelURL", c.ModelURL}, {"TokenizerURL", c.TokenizerURL}} {
		if u.s == "" {
			continue
		}
		p, err := url.Parse(u.s)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			bad("%s %q is not an absolute http(s) URL", u.what, redactURL(u.s))
		}
	}
	if c.Dimensions <= 0 {
		bad("dimensions must be positive, got %d", c.Dimensions)
	}
	switch c.Pooling {
	case "", PoolingMean, PoolingCLS, PoolingNone:
	default:
		bad("pooling %q is not one of mean, cls, none", c.Pooling)
	}
	switch c.cellType() {
	case CellFloat, CellBFloat16:
	case CellBinary:
		if c.Dimensions%8 != 0 {
			bad("binarized cells need dimensions divisible by 8, got %d", c.Dimensions)
		}
		if c.DistanceMetric != "" && c.DistanceMetric != DistanceHamming {
			bad("binarized cells need the hamming distance, got %q", c.DistanceMetric)
		}
	default:
		bad("cell type %q is not one of float, bfloat16, int8", c.CellType)
	}
	switch c.DistanceMetric {
	case "", DistanceAngular, DistanceEuclidean, DistanceDotProduct, DistanceHamming:
	case DistancePrenormalizedAngular:
		if !c.Normalize {
			bad("distance prenormalized-angular needs Normalize")
		}
	default:
		bad("distance metric %q is not one of angular, prenormalized-angular, euclidean, dotproduct, hamming", c.DistanceMetric)
	}
	if c.MaxTokens < 0 {
		bad("max tokens must not be negative, got %d", c.MaxTokens)
	}
	if c.NoTokenTypeIDs && c.TransformerTokenTypeIDs != "" {
		bad("NoTokenTypeIDs contradicts TransformerTokenTypeIDs %q", c.TransformerTokenTypeIDs)
	}
	return errors.Join(errs...)
}

// redactURL hides the password of a URL's user info and its query string,
// where signed URLs keep their credentials, so a URL can be shown in errors.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "<unparseable URL>"
	}
	if u.RawQuery != "" {
		u.RawQuery = "REDACTED"
	}
	return u.Redacted()
}
