package models_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/retries"
)

// A flaky embedding provider fails twice; the retrying wrapper hides it.
func ExampleRetrying() {
	calls := 0
	provider := models.EmbedFunc(func(ctx context.Context, text string) ([]float32, error) {
		calls++
		if calls < 3 {
			return nil, errors.New("provider: 503 overloaded")
		}
		return []float32{0.1, 0.2, 0.3}, nil
	})
	// retries.Embedder retries every error but a cancellation; this copy
	// makes up to 4 attempts, with short waits for the example.
	policy := retries.Embedder.WithMaxAttempts(4).WithWait(retries.WaitExponential(time.Millisecond, 0, 10*time.Millisecond))
	e, err := models.Retrying(provider, policy)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := e.Embed(context.Background(), "what is vespa?")
	fmt.Println(v, err, "after", calls, "calls")
	// Output: [0.1 0.2 0.3] <nil> after 3 calls
}

// Query the emulator with a query vector embedded on the client side. The
// documents were fed with vectors from the same embedder (see feedAndSearch
// in emulator_ext_test.go: ModelConfig.FillEmbedding on a schema generated with
// EmbeddingField{Fed: true}).
func ExampleModelConfig_NearestNeighborQuery() {
	ctx := context.Background()
	qc, closeAll, err := feedAndSearch(ctx) // emulator, schema, three documents
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeAll()

	embedder, err := models.Retrying(toyEmbedder, retries.Embedder) // survive a flaky provider
	if err != nil {
		fmt.Println(err)
		return
	}
	req, err := toyConfig().NearestNeighborQuery(ctx, embedder, "my cat and her kitten met a puppy", models.VectorQuery{
		TargetHits: 2, // the two nearest documents
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.YQL)
	res, err := qc.Search(ctx, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range res.Hits {
		fmt.Println(h.ID)
	}
	// Output:
	// select * from sources * where ({targetHits: 2}nearestNeighbor(embedding, q))
	// id:test:doc::1
	// id:test:doc::2
}

// An invalid policy is rejected when the wrapper is built.
func ExampleRetrying_invalid() {
	noop := models.EmbedFunc(func(context.Context, string) ([]float32, error) { return nil, nil })
	_, err := models.Retrying(noop, retries.Embedder.WithMaxAttempts(0))
	fmt.Println(err)
	// Output: models: Retrying: retries: policy "Embedder": max attempts must be at least 1, got 0
}

// The snippets Vespa needs for a predefined model.
func ExampleModelConfig_ServicesComponent() {
	fmt.Print(models.SnowflakeArcticEmbedXS().ServicesComponent())
	// Output:
	// <component id="snowflake_arctic_embed_xs" type="hugging-face-embedder">
	//     <transformer-model url="https://huggingface.co/Snowflake/snowflake-arctic-embed-xs/resolve/main/onnx/model_quantized.onnx"/>
	//     <tokenizer-model url="https://huggingface.co/Snowflake/snowflake-arctic-embed-xs/raw/main/tokenizer.json"/>
	//     <max-tokens>512</max-tokens>
	//     <pooling-strategy>cls</pooling-strategy>
	//     <normalize>true</normalize>
	//     <prepend>
	//         <query>Represent this sentence for searching relevant passages: </query>
	//     </prepend>
	// </component>
}

// A binarized embedding field: 768 bits packed into 96 int8 cells, compared
// with the hamming distance.
func ExampleModelConfig_SchemaField() {
	cfg := models.NomicEmbedTextV15()
	cfg.CellType = models.CellBinary
	field, err := cfg.SchemaField(models.EmbeddingField{From: []string{"title", "text"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(field)
	// Output:
	// field embedding type tensor<int8>(x[96]) {
	//     indexing: input title . " " . input text | embed nomic_embed_text_v1_5 | attribute | index
	//     attribute {
	//         distance-metric: hamming
	//     }
	//     index {
	//         hnsw {
	//             max-links-per-node: 16
	//             neighbors-to-explore-at-insert: 200
	//         }
	//     }
	// }
}
