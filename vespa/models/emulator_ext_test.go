package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// schemaText assembles a whole schema "doc" around the generated snippets
// (see buildSchema) or fails the test.
func schemaText(t testing.TB, c models.ModelConfig, f models.EmbeddingField) string {
	t.Helper()
	sd, err := buildSchema(c, f)
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

// buildSchema assembles a whole schema "doc" around the generated snippets: a
// text field, the embedding field (inside the document block when fed), and
// both rank profiles.
func buildSchema(c models.ModelConfig, f models.EmbeddingField) (string, error) {
	field, err := c.SchemaField(f)
	if err != nil {
		return "", err
	}
	sem, err := c.SemanticRankProfile(models.RankProfile{Field: f.Name})
	if err != nil {
		return "", err
	}
	hyb, err := c.HybridRankProfile(models.RankProfile{Field: f.Name})
	if err != nil {
		return "", err
	}
	doc := "        field text type string {\n            indexing: index | summary\n            index: enable-bm25\n        }\n"
	outside := ""
	if f.Fed {
		doc += indent(field, "        ")
	} else {
		outside = indent(field, "    ")
	}
	return "schema doc {\n    document doc {\n" + doc + "    }\n" + outside + indent(sem, "    ") + indent(hyb, "    ") + "}\n", nil
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

func TestEmulatorAcceptsGeneratedSchema(t *testing.T) {
	binary := withCells(models.NomicEmbedTextV15(), models.CellBinary)
	for _, tc := range []struct {
		name     string
		cfg      models.ModelConfig
		field    models.EmbeddingField
		wantType string
		wantDist string
		embedded bool // the embedding field is a document field the emulator knows
	}{
		{"embedded by Vespa", models.E5SmallV2(), models.EmbeddingField{}, "", "", false},
		{"fed float", models.E5SmallV2(), models.EmbeddingField{Fed: true}, "tensor<float>(x[384])", "angular", true},
		{"fed binary", binary, models.EmbeddingField{Fed: true, Name: "bits"}, "tensor<int8>(x[96])", "hamming", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sd := schemaText(t, tc.cfg, tc.field)
			services := "<services version=\"1.0\">\n<container id=\"default\" version=\"1.0\">\n" +
				tc.cfg.ServicesComponent() + "<search/>\n<document-api/>\n</container>\n" +
				"<content id=\"content\" version=\"1.0\">\n<documents>\n<document type=\"doc\" mode=\"index\"/>\n" +
				"</documents>\n</content>\n</services>\n"
			dir := testutil.AppDir(t, map[string]string{"schemas/doc.sd": sd, "services.xml": services})
			srv, err := vespatest.Start(vespatest.WithApplicationDir(dir))
			if err != nil {
				t.Fatalf("the emulator rejects the application:\n%s\n%v", sd, err)
			}
			srv.Close()

			sch, err := vespatest.ParseSchema(sd)
			if err != nil {
				t.Fatalf("ParseSchema: %v\n%s", err, sd)
			}
			byName := map[string]vespatest.Field{}
			for _, f := range sch.Fields {
				byName[f.Name] = f
			}
			if sch.Name != "doc" || byName["text"].Type != "string" || !byName["text"].Indexed {
				t.Errorf("parsed %+v", sch)
			}
			name := tc.field.Name
			if name == "" {
				name = "embedding"
			}
			f, ok := byName[name]
			if ok != tc.embedded {
				t.Fatalf("field %s known to the emulator: %v, want %v (%+v)", name, ok, tc.embedded, sch)
			}
			if ok && (f.Type != tc.wantType || f.DistanceMetric != tc.wantDist) {
				t.Errorf("field %s = %+v, want type %s and metric %s", name, f, tc.wantType, tc.wantDist)
			}
		})
	}
}

// toyEmbedder embeds text into 4 dimensions by counting a few words, so that
// tests and examples have nearest neighbors they can predict.
var toyEmbedder = models.EmbedFunc(func(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, 4)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		switch strings.Trim(w, ".,?!") {
		case "cat", "cats", "kitten":
			v[0]++
		case "dog", "dogs", "puppy":
			v[1]++
		case "car", "cars", "engine":
			v[2]++
		default:
			v[3] += 0.1
		}
	}
	return v, nil
})

// toyConfig is a four-dimensional model whose vectors the application feeds.
func toyConfig() models.ModelConfig {
	return models.ModelConfig{Name: "toy", ModelPath: "toy.onnx", TokenizerPath: "tokenizer.json", Dimensions: 4}
}

// feedAndSearch starts the emulator with the generated schema, feeds three
// documents embedded on the client side, and returns a query client and a
// function that closes everything.
func feedAndSearch(ctx context.Context) (*query.Client, func(), error) {
	qc, _, cleanup, err := feedAndSearchDocs(ctx)
	return qc, cleanup, err
}

// feedAndSearchDocs is feedAndSearch that also returns the document client.
func feedAndSearchDocs(ctx context.Context) (*query.Client, *vespa.Client, func(), error) {
	cfg := toyConfig()
	sd, err := buildSchema(cfg, models.EmbeddingField{Fed: true})
	if err != nil {
		return nil, nil, nil, err
	}
	sch, err := vespatest.ParseSchema(sd)
	if err != nil {
		return nil, nil, nil, err
	}
	srv := vespatest.NewServer(vespatest.WithSchema(sch)) //nolint:contextcheck // like httptest.NewServer, the emulator takes no context: it lives until Close
	client, err := vespa.NewClient(srv.URL())
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	cleanup := func() { client.Close(); srv.Close() }
	retrying, err := models.Retrying(toyEmbedder, retries.Embedder)
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	for id, text := range map[string]string{
		"1": "A kitten and two cats",
		"2": "The puppy chased the dog",
		"3": "Engine trouble in old cars",
	} {
		fields := map[string]any{"text": text}
		if err := cfg.FillEmbedding(ctx, retrying, fields, "embedding", text); err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		docID, err := vespa.ParseDocumentID("id:test:doc::" + id)
		if err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		if _, err := client.Put(ctx, docID, fields, vespa.OperationOptions{}); err != nil {
			cleanup()
			return nil, nil, nil, err
		}
	}
	qc, err := query.New(client)
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return qc, client, cleanup, nil
}

func TestNearestNeighborQuery_AgainstEmulator(t *testing.T) {
	ctx := t.Context()
	qc, client, cleanup, err := feedAndSearchDocs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	cfg := toyConfig()
	req, err := cfg.NearestNeighborQuery(ctx, toyEmbedder, "my dog", models.VectorQuery{TargetHits: 2, Sources: []string{"doc"}})
	if err != nil {
		t.Fatal(err)
	}
	if req.YQL != "select * from doc where ({targetHits: 2}nearestNeighbor(embedding, q))" {
		t.Errorf("YQL = %q", req.YQL)
	}
	res, err := qc.Search(ctx, req)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if len(res.Hits) != 2 || res.Hits[0].ID != "id:test:doc::2" {
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, fmt.Sprintf("%s(%v)", h.ID, h.Relevance))
		}
		t.Errorf("hits = %v, want 2 hits led by id:test:doc::2", ids)
	}
	// The stored vector is what FillEmbedding computed. The field is no
	// summary field ("attribute | index"), so hits leave it out, as Vespa's
	// default summary does: read it back with a Get.
	if raw, ok := res.Hits[0].Field("embedding"); ok {
		t.Errorf("hit shows the non-summary field embedding: %s", raw)
	}
	got, err := client.Get(ctx, vespa.MustParseDocumentID("id:test:doc::2"), vespa.OperationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var stored struct{ Embedding struct{ Values []float32 } }
	if err := json.Unmarshal(got.Fields, &stored); err != nil || len(stored.Embedding.Values) != 4 || stored.Embedding.Values[1] != 2 {
		t.Errorf("stored document = %s (%v)", got.Fields, err)
	}
}

func TestVectorQuery_Requests(t *testing.T) {
	cfg := models.E5SmallV2()
	cfg.Dimensions = 2
	e := models.EmbedFunc(func(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil })
	req, err := cfg.NearestNeighborQuery(t.Context(), e, "cats", models.VectorQuery{Hybrid: true, Hits: 5})
	if err != nil {
		t.Fatal(err)
	}
	if req.Ranking != "hybrid" || req.Query != "cats" || req.Hits != 5 || !strings.Contains(req.YQL, "userQuery()") ||
		!strings.Contains(req.YQL, "{targetHits: 100}nearestNeighbor(embedding, q)") {
		t.Errorf("hybrid request = %+v", req)
	}
	if v, ok := req.Inputs["q"].([]float32); !ok || len(v) != 2 {
		t.Errorf("inputs = %#v", req.Inputs)
	}
	req, err = cfg.EmbedInVespaQuery("cats", models.VectorQuery{QueryInput: "qe"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Inputs["qe"] != "embed(e5_small_v2, @query)" || req.Query != "cats" || req.Ranking != "semantic" ||
		strings.Contains(req.YQL, "userQuery") {
		t.Errorf("embed-in-Vespa request = %+v", req)
	}
	if _, err := cfg.NearestNeighborQuery(t.Context(), e, "x", models.VectorQuery{TargetHits: -1}); err == nil {
		t.Error("negative target hits accepted")
	}
	bad := models.EmbedFunc(func(context.Context, string) ([]float32, error) { return []float32{1, 2, 3}, nil })
	if _, err := cfg.NearestNeighborQuery(t.Context(), bad, "x", models.VectorQuery{}); err == nil {
		t.Error("a vector of the wrong length was accepted")
	}
}
