// Package models holds embedding-model configurations for Vespa's
// hugging-face-embedder, checks that their files can be downloaded, writes the
// services.xml and schema snippets that use them, and offers a client-side
// [Embedder] with an opt-in retrying wrapper.
//
// Start from a predefined configuration and check its URLs before deploying:
//
//	cfg := models.E5SmallV2()
//	if err := cfg.Validate(ctx); err != nil { ... } // HEAD (or GET) each URL
//
// Then write what Vespa needs: the <component> for the container in
// services.xml ([ModelConfig.ServicesComponent]), the embedding field of the
// schema with its distance metric and HNSW index ([ModelConfig.SchemaField]),
// and semantic and hybrid rank profiles ([ModelConfig.SemanticRankProfile],
// [ModelConfig.HybridRankProfile]).
//
// Applications that embed text themselves implement [Embedder] (or adapt a
// function with [EmbedFunc] or [EmbedAllFunc]), wrap it with [Retrying] to
// survive a flaky provider, and turn vectors into query inputs
// ([ModelConfig.QueryCells]) and document fields ([ModelConfig.FillEmbedding]).
//
// # Retries
//
// [ModelConfig.Validate] runs each URL's check under retries.URLValidation and
// [Retrying] under the policy it is given, retries.Embedder or a copy of it;
// this package has no retry loop of its own. Neither retries nor delays a
// cancelled context.
//
// # Secrets
//
// A Hugging Face token (WithHuggingFaceToken, or the HF_TOKEN environment
// variable) goes only to Hugging Face hosts and never into errors or logs.
package models
