package models_test

import (
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/models"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

func TestServicesComponent_Golden(t *testing.T) {
	for _, name := range models.PredefinedNames() {
		t.Run(name, func(t *testing.T) {
			c, _ := models.Predefined(name)
			golden(t, "services-"+name, c.ServicesComponent())
		})
	}
}

func TestServicesComponent_AllSettings(t *testing.T) {
	c := models.ModelConfig{
		Name:                     "custom & <model>",
		ComponentID:              "custom",
		ModelPath:                "models/model.onnx",
		TokenizerPath:            "models/tokenizer.json",
		Dimensions:               1024,
		Pooling:                  models.PoolingCLS,
		Normalize:                true,
		CellType:                 models.CellBinary,
		MaxTokens:                8192,
		QueryPrefix:              `Query: "<q>" & `,
		TransformerInputIDs:      "ids",
		TransformerAttentionMask: "mask",
		NoTokenTypeIDs:           true,
		TransformerOutput:        "token_embeddings",
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	golden(t, "services-all-settings", c.ServicesComponent())
}

// component is the shape of the generated element, to prove it is XML that
// says what the configuration says.
type component struct {
	XMLName     xml.Name `xml:"component"`
	ID          string   `xml:"id,attr"`
	Type        string   `xml:"type,attr"`
	Transformer struct {
		ModelID string `xml:"model-id,attr"`
		URL     string `xml:"url,attr"`
		Path    string `xml:"path,attr"`
	} `xml:"transformer-model"`
	Tokenizer struct {
		URL string `xml:"url,attr"`
	} `xml:"tokenizer-model"`
	MaxTokens int    `xml:"max-tokens"`
	Pooling   string `xml:"pooling-strategy"`
	Normalize bool   `xml:"normalize"`
	Query     string `xml:"prepend>query"`
	Document  string `xml:"prepend>document"`
}

func TestServicesComponent_ParsesBack(t *testing.T) {
	for _, name := range models.PredefinedNames() {
		c, _ := models.Predefined(name)
		var got component
		if err := xml.Unmarshal([]byte(c.ServicesComponent()), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.ID != c.Component() || got.Type != "hugging-face-embedder" || got.Transformer.URL != c.ModelURL ||
			got.Transformer.ModelID != c.ModelID || got.Tokenizer.URL != c.TokenizerURL || got.MaxTokens != c.MaxTokens ||
			got.Pooling != string(c.Pooling) || got.Normalize != c.Normalize || got.Query != c.QueryPrefix ||
			got.Document != c.DocumentPrefix {
			t.Errorf("%s: parsed %+v from\n%s", name, got, c.ServicesComponent())
		}
	}
}

// withCells returns c with its embeddings stored as cells.
func withCells(c models.ModelConfig, cells models.CellType) models.ModelConfig {
	c.CellType = cells
	return c
}

func TestSchemaSnippets_Golden(t *testing.T) {
	binary := withCells(models.NomicEmbedTextV15(), models.CellBinary)
	bf16 := withCells(models.SnowflakeArcticEmbedXS(), models.CellBFloat16)
	for _, tc := range []struct {
		name  string
		cfg   models.ModelConfig
		field models.EmbeddingField
		rank  models.RankProfile
	}{
		{"e5-small-v2", models.E5SmallV2(), models.EmbeddingField{}, models.RankProfile{}},
		{"nomic-binary", binary, models.EmbeddingField{Name: "bits", From: []string{"title", "body"}, MaxLinksPerNode: 32},
			models.RankProfile{Field: "bits", TextFields: []string{"title", "body"}, Fusion: models.FusionRRF}},
		{"minilm-fed", models.AllMiniLML6V2(), models.EmbeddingField{Fed: true}, models.RankProfile{}},
		{"arctic-bfloat16-exact", bf16, models.EmbeddingField{Exact: true},
			models.RankProfile{QueryInput: "qv", RerankCount: 200, Fusion: models.FusionRRF}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			field, err := tc.cfg.SchemaField(tc.field)
			if err != nil {
				t.Fatal(err)
			}
			sem, err := tc.cfg.SemanticRankProfile(tc.rank)
			if err != nil {
				t.Fatal(err)
			}
			hyb, err := tc.cfg.HybridRankProfile(tc.rank)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "schema-"+tc.name, field+"\n"+sem+"\n"+hyb)
		})
	}
}

func TestSchemaField_RejectsBadNames(t *testing.T) {
	c := models.E5SmallV2()
	for _, f := range []models.EmbeddingField{
		{Name: "bad-name"}, {From: []string{"text", "x y"}}, {Name: "1st"}, {MaxLinksPerNode: -1},
		{Fed: true, From: []string{"text"}},
	} {
		if _, err := c.SchemaField(f); !errors.Is(err, models.ErrInvalidConfig) {
			t.Errorf("SchemaField(%+v) = %v, want ErrInvalidConfig", f, err)
		}
	}
	for _, p := range []models.RankProfile{
		{Name: "my profile"}, {Field: "a.b"}, {QueryInput: "q)"}, {TextFields: []string{""}}, {Fusion: 7}, {RerankCount: -1},
	} {
		if _, err := c.HybridRankProfile(p); !errors.Is(err, models.ErrInvalidConfig) {
			t.Errorf("HybridRankProfile(%+v) = %v, want ErrInvalidConfig", p, err)
		}
	}
}

func TestCheck(t *testing.T) {
	ok := models.E5SmallV2()
	if err := ok.Check(); err != nil {
		t.Fatalf("E5SmallV2().Check() = %v", err)
	}
	for name, mutate := range map[string]func(*models.ModelConfig){
		"no name":               func(c *models.ModelConfig) { c.Name = "" },
		"bad component id":      func(c *models.ModelConfig) { c.ComponentID = "e5-small" },
		"no model":              func(c *models.ModelConfig) { c.ModelID, c.ModelURL = "", "" },
		"relative URL":          func(c *models.ModelConfig) { c.TokenizerURL = "tokenizer.json" },
		"ftp URL":               func(c *models.ModelConfig) { c.ModelURL = "ftp://host/model.onnx" },
		"zero dimensions":       func(c *models.ModelConfig) { c.Dimensions = 0 },
		"pooling":               func(c *models.ModelConfig) { c.Pooling = "max" },
		"cell type":             func(c *models.ModelConfig) { c.CellType = "double" },
		"binary not by 8":       func(c *models.ModelConfig) { c.CellType, c.Dimensions = models.CellBinary, 100 },
		"binary angular":        func(c *models.ModelConfig) { c.CellType, c.DistanceMetric = models.CellBinary, models.DistanceAngular },
		"prenormalized":         func(c *models.ModelConfig) { c.DistanceMetric = models.DistancePrenormalizedAngular },
		"unknown metric":        func(c *models.ModelConfig) { c.DistanceMetric = "cosine" },
		"negative max tokens":   func(c *models.ModelConfig) { c.MaxTokens = -1 },
		"token type ids twice":  func(c *models.ModelConfig) { c.NoTokenTypeIDs, c.TransformerTokenTypeIDs = true, "tt" },
		"tokenizer without hub": func(c *models.ModelConfig) { c.ModelID, c.TokenizerURL = "", "" },
	} {
		c := models.E5SmallV2()
		mutate(&c)
		if err := c.Check(); !errors.Is(err, models.ErrInvalidConfig) {
			t.Errorf("%s: Check() = %v, want ErrInvalidConfig", name, err)
		}
	}
}

func TestCheck_RedactsURLSecrets(t *testing.T) {
	c := models.E5SmallV2()
	c.ModelURL = "ftp://user:pa55word@host/model.onnx?sig=s3cret"
	err := c.Check()
	if err == nil || strings.Contains(err.Error(), "pa55word") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Check() = %v, want an error without the password or query", err)
	}
}

func TestPredefined(t *testing.T) {
	names := models.PredefinedNames()
	for _, want := range []string{"e5-small-v2", "multilingual-e5-small", "bge-small-en-v1.5", "nomic-embed-text-v1.5",
		"all-MiniLM-L6-v2", "snowflake-arctic-embed-xs"} {
		if _, ok := models.Predefined(want); !ok {
			t.Errorf("Predefined(%q) missing; have %v", want, names)
		}
	}
	for _, n := range names {
		c, _ := models.Predefined(n)
		if c.Name != n {
			t.Errorf("Predefined(%q).Name = %q", n, c.Name)
		}
		if err := c.Check(); err != nil {
			t.Errorf("Predefined(%q).Check() = %v", n, err)
		}
		if c.Source == "" || c.ModelURL == "" || c.TokenizerURL == "" {
			t.Errorf("Predefined(%q) lacks a source or URL: %+v", n, c)
		}
	}
	// Each call returns a fresh copy.
	a, _ := models.Predefined("e5-small-v2")
	a.Dimensions = 1
	if b, _ := models.Predefined("e5-small-v2"); b.Dimensions != 384 {
		t.Errorf("Predefined returned shared state: %d", b.Dimensions)
	}
	if _, ok := models.Predefined("no-such-model"); ok {
		t.Error("Predefined(no-such-model) = true")
	}
}

func TestDerivedTypes(t *testing.T) {
	c := models.NomicEmbedTextV15()
	if got := c.TensorType(); got != "tensor<float>(x[768])" {
		t.Errorf("TensorType = %q", got)
	}
	if got := c.Distance(); got != models.DistancePrenormalizedAngular {
		t.Errorf("Distance = %q", got)
	}
	c.CellType = models.CellBinary
	if got := c.TensorType(); got != "tensor<int8>(x[96])" {
		t.Errorf("binary TensorType = %q", got)
	}
	if got := c.Distance(); got != models.DistanceHamming {
		t.Errorf("binary Distance = %q", got)
	}
	if got := models.E5SmallV2().Distance(); got != models.DistanceAngular {
		t.Errorf("E5 Distance = %q", got)
	}
	for name, want := range map[string]string{
		"e5-small-v2": "e5_small_v2", "all-MiniLM-L6-v2": "all_MiniLM_L6_v2", "9lives": "model_9lives",
		"--x--y": "x_y", "": "model_",
	} {
		if got := (models.ModelConfig{Name: name}).Component(); got != want {
			t.Errorf("Component(%q) = %q, want %q", name, got, want)
		}
	}
}
