-- The reranker a project's consent named too (semantic.rerank's endpoint; NULL = none was configured
-- when it was given). Search-time reranking sends text only when it equals the configured rerank
-- endpoint, so a reranker added or moved later needs a new consent. Existing rows get NULL.
ALTER TABLE "semantic_projects" ADD COLUMN "rerank_endpoint" text;