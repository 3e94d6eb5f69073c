-- +goose Up
-- B2C receipts (DECISIONS 17): the sales to the public a tenant records,
-- awaiting a buyer's request or the month's consolidation. The columns hold
-- what is filtered or looked up; the body (JSON, amounts as decimal text)
-- the rest, as documents do. A deleted receipt stays as a tombstone
-- (deleted_at set) so that its request page can say it was deleted; its
-- receipt number is free again.
CREATE TABLE receipts (
    id                        UUID PRIMARY KEY,
    tenant_id                 UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    receipt_number            TEXT NOT NULL,
    receipt_number_lower      TEXT NOT NULL,
    issued_at                 BIGINT NOT NULL,
    month                     TEXT NOT NULL,
    status                    TEXT NOT NULL,
    token                     TEXT NOT NULL,
    invoice_id                TEXT NOT NULL DEFAULT '',
    consolidation_id          TEXT NOT NULL DEFAULT '',
    consolidated_document_id  TEXT NOT NULL DEFAULT '',
    excluded_reason           TEXT NOT NULL DEFAULT '',
    body                      TEXT NOT NULL,
    deleted_at                BIGINT,
    created_at                BIGINT NOT NULL,
    updated_at                BIGINT NOT NULL
);
CREATE UNIQUE INDEX receipts_number ON receipts (tenant_id, receipt_number) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX receipts_token ON receipts (token);
CREATE INDEX receipts_list ON receipts (tenant_id, issued_at DESC, receipt_number DESC, id DESC);
CREATE INDEX receipts_month ON receipts (tenant_id, month, status);
CREATE INDEX receipts_search ON receipts (tenant_id, receipt_number_lower);
CREATE INDEX receipts_consolidation ON receipts (consolidation_id) WHERE consolidation_id <> '';

-- The tenant's declared interim relaxation of the RM10,000 limit of
-- consolidation (a date, YYYY-MM-DD, or '').
ALTER TABLE tenants ADD COLUMN consolidation_relaxed_until TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tenants DROP COLUMN consolidation_relaxed_until;
DROP TABLE receipts;
