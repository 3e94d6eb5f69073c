-- +goose Up
-- Consolidations (DECISIONS 17): a month's receipts made consolidated
-- invoices. The body (JSON) holds the progress shown by the API (documents,
-- counts, excluded receipts); the columns what is filtered, claimed or
-- unique. One running consolidation per tenant at most; a lease says which
-- process works it (another takes over once it expires: a crash).
CREATE TABLE consolidations (
    id            UUID PRIMARY KEY,
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    month         TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    status        TEXT NOT NULL,
    body          TEXT NOT NULL,
    lease_owner   TEXT NOT NULL DEFAULT '',
    lease_until   BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL,
    completed_at  BIGINT
);
CREATE UNIQUE INDEX consolidations_month_seq ON consolidations (tenant_id, month, seq);
CREATE UNIQUE INDEX consolidations_running ON consolidations (tenant_id) WHERE status = 'running';
CREATE INDEX consolidations_list ON consolidations (tenant_id, created_at DESC, id DESC);
CREATE INDEX consolidations_claim ON consolidations (status, lease_until);
CREATE INDEX receipts_document ON receipts (consolidated_document_id) WHERE consolidated_document_id <> '';

-- The scheduler's claims: one per tenant and month, on any replica.
CREATE TABLE consolidation_schedule (
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    month       TEXT NOT NULL,
    claimed_at  BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, month)
);

-- +goose Down
DROP TABLE consolidation_schedule;
DROP INDEX receipts_document;
DROP TABLE consolidations;
