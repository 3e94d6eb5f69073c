-- +goose Up
-- Idempotency keys (DECISIONS 15): one row per tenant and key, the
-- response kept (status, headers as JSON, body), replayed until expires_at.
-- On SQLite, which one process serves, the unfinished claims (token,
-- lease_until) are held by that process and a row is written once, with
-- its response (sqlstore/idempotency_sqlite.go); the columns are those of
-- PostgreSQL's table. Times are unix microseconds. No foreign key: expired
-- rows are purged by expires_at.
CREATE TABLE idempotency_keys (
    tenant_id    TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    token        TEXT NOT NULL,
    lease_until  BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    headers      TEXT NOT NULL DEFAULT '',
    body         BLOB,
    PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
