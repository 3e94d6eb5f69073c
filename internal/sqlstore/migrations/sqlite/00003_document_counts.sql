-- +goose Up
-- The number of documents per tenant, kind and status, kept in the same
-- transaction as every write, so that a list's total does not count rows.
-- Each count is spread over a few shards, so that concurrent writers of one
-- tenant do not all wait on one row; a total is the sum of its shards.
CREATE TABLE document_counts (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,
    shard      INTEGER NOT NULL,
    n          BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, kind, status, shard)
);
INSERT INTO document_counts (tenant_id, kind, status, shard, n)
    SELECT tenant_id, kind, status, 0, COUNT(*) FROM documents GROUP BY tenant_id, kind, status;

-- +goose Down
DROP TABLE document_counts;
