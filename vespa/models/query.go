package models

import (
	"context"
	"fmt"

	"github.com/govespa/govespa/vespa/query"
)

// VectorQuery describes the nearestNeighbor query built by
// [ModelConfig.NearestNeighborQuery] and [ModelConfig.EmbedInVespaQuery]; its
// zero value searches the field embedding of every schema for its 100 nearest
// neighbors, ranked by the rank profile semantic.
type VectorQuery struct {
	// Sources are the schemas to search; empty: all of them (sources *).
	Sources []string
	// Field is the embedding field; empty: "embedding".
	Field string
	// QueryInput is the name of the query tensor, query(<QueryInput>);
	// empty: "q". It must match the rank profile's input.
	QueryInput string
	// TargetHits is the number of nearest neighbors to find; 0: 100.
	TargetHits int
	// Hybrid also matches the text lexically: the condition becomes
	// userQuery() OR nearestNeighbor(…), and the text is sent as the query.
	Hybrid bool
	// Ranking is the rank profile; empty: "semantic", or "hybrid" with Hybrid
	// (the names [ModelConfig.SemanticRankProfile] and
	// [ModelConfig.HybridRankProfile] use by default).
	Ranking string
	// Hits is the number of hits to return; 0: Vespa's default, 10.
	Hits int
}

// request builds the query request for q with the given query-tensor value.
func (q VectorQuery) request(text string, tensor any) (*query.Request, error) {
	field := orDefault(q.Field, "embedding")
	input := orDefault(q.QueryInput, "q")
	targetHits := q.TargetHits
	if targetHits == 0 {
		targetHits = 100
	}
	if targetHits < 0 {
		return nil, fmt.Errorf("%w: target hits must not be negative, got %d", ErrInvalidConfig, targetHits)
	}
	if err := checkIdent("query input", input); err != nil {
		return nil, err
	}
	cond := query.NearestNeighbor(field, input, targetHits)
	ranking := orDefault(q.Ranking, "semantic")
	req := &query.Request{Hits: q.Hits, Inputs: map[string]any{input: tensor}}
	if q.Hybrid {
		cond = query.Or(query.UserQuery(), cond)
		ranking = orDefault(q.Ranking, "hybrid")
		req.Query = text
	}
	yql, err := query.Select().From(q.Sources...).Where(cond).YQL()
	if err != nil {
		return nil, err
	}
	req.YQL = yql
	req.Ranking = ranking
	return req, nil
}

// NearestNeighborQuery embeds text on the client side with e and returns the
// query request that finds the documents nearest to it:
//
//	select * from sources * where {targetHits:100}nearestNeighbor(embedding, q)
//
// with the vector as input.query(q) (packed bits for CellBinary) and the rank
// profile semantic; with Hybrid, userQuery() OR nearestNeighbor(…), the text
// as the query and the rank profile hybrid. The text is passed to e as it is
// (add QueryPrefix yourself if e needs it). Send the request with
// query.Client.Search.
func (c ModelConfig) NearestNeighborQuery(ctx context.Context, e Embedder, text string, q VectorQuery) (*query.Request, error) {
	cells, err := c.QueryCells(ctx, e, text)
	if err != nil {
		return nil, err
	}
	return q.request(text, cells)
}

// EmbedInVespaQuery returns the query request that has Vespa embed text with
// this model's embedder component, as NearestNeighborQuery does on the client
// side: input.query(q) is embed(<component>, @query) and the text is sent as
// the query, so Vespa applies QueryPrefix itself. The application's
// services.xml must declare the component ([ModelConfig.ServicesComponent]).
func (c ModelConfig) EmbedInVespaQuery(text string, q VectorQuery) (*query.Request, error) {
	if err := checkIdent("component id", c.Component()); err != nil {
		return nil, err
	}
	req, err := q.request(text, "embed("+c.Component()+", @query)")
	if err != nil {
		return nil, err
	}
	req.Query = text
	return req, nil
}
