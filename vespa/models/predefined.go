package models

import "sort"

// Predefined configurations of widely used small embedding models.
//
// Every URL and number below was looked up, not guessed; each function's
// comment says where. "Vespa docs" refers to
// github.com/vespa-engine/documentation (commit 7b53ea44, 2026-08-21),
// "sample-apps" to github.com/vespa-engine/sample-apps (commit 529d5240,
// 2026-08-20) and "pyvespa" to github.com/vespa-engine/pyvespa, vespa/models.py
// (commit 42b584a5, 2026-07-01). Run [ModelConfig.Validate] before deploying:
// files on Hugging Face can move.

// E5SmallV2 returns the configuration of intfloat/e5-small-v2: 384 dimensions,
// mean pooling, 512 tokens, "query: " and "passage: " prefixes. On Vespa Cloud
// the model hub's copy (model-id e5-small-v2) is used.
//
// Source: URLs from Vespa docs en/rag/embedding.html (the hugging-face-embedder
// example); dimensions, model id, max tokens and prefixes from Vespa docs
// en/rag/model-hub.html (#e5-small-v2).
func E5SmallV2() ModelConfig {
	return ModelConfig{
		Name:           "e5-small-v2",
		ModelID:        "e5-small-v2",
		ModelURL:       "https://huggingface.co/intfloat/e5-small-v2/resolve/main/model.onnx",
		TokenizerURL:   "https://huggingface.co/intfloat/e5-small-v2/raw/main/tokenizer.json",
		Dimensions:     384,
		Pooling:        PoolingMean,
		MaxTokens:      512,
		QueryPrefix:    "query: ",
		DocumentPrefix: "passage: ",
		Source:         "Vespa docs en/rag/embedding.html, en/rag/model-hub.html#e5-small-v2",
	}
}

// MultilingualE5Small returns the configuration of
// intfloat/multilingual-e5-small, exported to ONNX and hosted by Vespa: 384
// dimensions, mean pooling, "query: " and "passage: " prefixes.
//
// Source: URLs and prefixes from sample-apps multilingual-search/services.xml;
// 384 dimensions from sample-apps multilingual-search/schemas/doc.sd (field
// embedding type tensor<float>(x[384])).
func MultilingualE5Small() ModelConfig {
	return ModelConfig{
		Name:           "multilingual-e5-small",
		ModelURL:       "https://data.vespa-cloud.com/sample-apps-data/m-e5-small/model.onnx",
		TokenizerURL:   "https://data.vespa-cloud.com/sample-apps-data/m-e5-small/tokenizer.json",
		Dimensions:     384,
		Pooling:        PoolingMean,
		MaxTokens:      512,
		QueryPrefix:    "query: ",
		DocumentPrefix: "passage: ",
		Source:         "sample-apps multilingual-search/services.xml and schemas/doc.sd",
	}
}

// BGESmallENV15 returns the configuration of BAAI/bge-small-en-v1.5: 384
// dimensions, CLS pooling, normalized (so prenormalized-angular), 512
// tokens, and BGE's retrieval instruction in front of queries.
//
// Source: the ONNX file and tokenizer.json are published in the model's own
// repository, https://huggingface.co/BAAI/bge-small-en-v1.5 (files
// onnx/model.onnx and tokenizer.json); CLS pooling, normalize and the query
// instruction from the Vespa blog "Representing BGE embedding models in Vespa
// using bfloat16" (2023-08-10, vespa-engine/blog); 384 dimensions and 512
// tokens from the model card.
func BGESmallENV15() ModelConfig {
	return ModelConfig{
		Name:         "bge-small-en-v1.5",
		ModelURL:     "https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/onnx/model.onnx",
		TokenizerURL: "https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/tokenizer.json",
		Dimensions:   384,
		Pooling:      PoolingCLS,
		Normalize:    true,
		MaxTokens:    512,
		QueryPrefix:  "Represent this sentence for searching relevant passages: ",
		Source:       "huggingface.co/BAAI/bge-small-en-v1.5; Vespa blog 2023-08-10 (BGE in Vespa using bfloat16)",
	}
}

// NomicEmbedTextV15 returns the configuration of nomic-ai/nomic-embed-text-v1.5:
// 768 dimensions, mean pooling, normalized, 8192 tokens, "search_query: " and
// "search_document: " prefixes. It suits binarization too (CellBinary gives
// tensor<int8>(x[96])).
//
// Source: 768 dimensions, normalize and the int8 binarization from Vespa docs
// en/rag/embedding.html (#huggingface-embedder-models); the ONNX file and
// tokenizer.json are published in the model's own repository,
// https://huggingface.co/nomic-ai/nomic-embed-text-v1.5 (files onnx/model.onnx
// and tokenizer.json); prefixes and the 8192-token context from its model
// card.
func NomicEmbedTextV15() ModelConfig {
	return ModelConfig{
		Name:           "nomic-embed-text-v1.5",
		ModelURL:       "https://huggingface.co/nomic-ai/nomic-embed-text-v1.5/resolve/main/onnx/model.onnx",
		TokenizerURL:   "https://huggingface.co/nomic-ai/nomic-embed-text-v1.5/resolve/main/tokenizer.json",
		Dimensions:     768,
		Pooling:        PoolingMean,
		Normalize:      true,
		MaxTokens:      8192,
		QueryPrefix:    "search_query: ",
		DocumentPrefix: "search_document: ",
		Source:         "Vespa docs en/rag/embedding.html; huggingface.co/nomic-ai/nomic-embed-text-v1.5",
	}
}

// AllMiniLML6V2 returns the configuration of
// sentence-transformers/all-MiniLM-L6-v2 for the hugging-face-embedder: 384
// dimensions, mean pooling, normalized, 256 tokens, no prefixes.
//
// Source: the ONNX URL from Vespa docs en/rag/embedding.html (the bert-embedder
// example, which uses the same model file); 384 dimensions from Vespa docs
// en/rag/model-hub.html (#minilm-l6-v2); tokenizer.json, mean pooling,
// normalization and the 256 word-piece limit from the model's repository and
// card, https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2.
func AllMiniLML6V2() ModelConfig {
	return ModelConfig{
		Name:         "all-MiniLM-L6-v2",
		ModelURL:     "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/onnx/model.onnx",
		TokenizerURL: "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/tokenizer.json",
		Dimensions:   384,
		Pooling:      PoolingMean,
		Normalize:    true,
		MaxTokens:    256,
		Source:       "Vespa docs en/rag/embedding.html, en/rag/model-hub.html#minilm-l6-v2; huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
	}
}

// SnowflakeArcticEmbedXS returns the configuration of
// Snowflake/snowflake-arctic-embed-xs (its quantized ONNX export): 384
// dimensions, CLS pooling, normalized, 512 tokens, and its retrieval
// instruction in front of queries.
//
// Source: URLs, CLS pooling and the query instruction from Vespa docs
// en/learn/tutorials/hybrid-search.md (services.xml); 384 dimensions and
// normalize from Vespa docs en/rag/embedding.html (Snowflake arctic model
// series).
func SnowflakeArcticEmbedXS() ModelConfig {
	return ModelConfig{
		Name:         "snowflake-arctic-embed-xs",
		ModelURL:     "https://huggingface.co/Snowflake/snowflake-arctic-embed-xs/resolve/main/onnx/model_quantized.onnx",
		TokenizerURL: "https://huggingface.co/Snowflake/snowflake-arctic-embed-xs/raw/main/tokenizer.json",
		Dimensions:   384,
		Pooling:      PoolingCLS,
		Normalize:    true,
		MaxTokens:    512,
		QueryPrefix:  "Represent this sentence for searching relevant passages: ",
		Source:       "Vespa docs en/learn/tutorials/hybrid-search.md, en/rag/embedding.html",
	}
}

// E5BaseV2 returns the configuration of intfloat/e5-base-v2: 768 dimensions,
// mean pooling, 512 tokens, "query: " and "passage: " prefixes; on Vespa
// Cloud the model hub's copy (model-id e5-base-v2) is used.
//
// Source: URLs from pyvespa vespa/models.py (HF_MODELS["e5-base-v2"]);
// dimensions, model id, max tokens and prefixes from Vespa docs
// en/rag/model-hub.html (#e5-base-v2).
func E5BaseV2() ModelConfig {
	return ModelConfig{
		Name:           "e5-base-v2",
		ModelID:        "e5-base-v2",
		ModelURL:       "https://huggingface.co/intfloat/e5-base-v2/resolve/main/onnx/model.onnx",
		TokenizerURL:   "https://huggingface.co/intfloat/e5-base-v2/resolve/main/tokenizer.json",
		Dimensions:     768,
		Pooling:        PoolingMean,
		MaxTokens:      512,
		QueryPrefix:    "query: ",
		DocumentPrefix: "passage: ",
		Source:         "pyvespa vespa/models.py; Vespa docs en/rag/model-hub.html#e5-base-v2",
	}
}

// predefined maps each predefined configuration's Name to its constructor.
var predefined = map[string]func() ModelConfig{
	"e5-small-v2":               E5SmallV2,
	"e5-base-v2":                E5BaseV2,
	"multilingual-e5-small":     MultilingualE5Small,
	"bge-small-en-v1.5":         BGESmallENV15,
	"nomic-embed-text-v1.5":     NomicEmbedTextV15,
	"all-MiniLM-L6-v2":          AllMiniLML6V2,
	"snowflake-arctic-embed-xs": SnowflakeArcticEmbedXS,
}

// Predefined returns a fresh copy of the predefined configuration with the
// given Name (see [PredefinedNames]), and false when there is none.
func Predefined(name string) (ModelConfig, bool) {
	f, ok := predefined[name]
	if !ok {
		return ModelConfig{}, false
	}
	return f(), true
}

// PredefinedNames returns the names of all predefined configurations, sorted.
func PredefinedNames() []string {
	names := make([]string, 0, len(predefined))
	for n := range predefined {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
