-- +goose Up
-- Idempotency keys (DECISIONS 15): one row per tenant and key. A request
-- claims its key before its operation runs (token, lease_until: another
-- request may take an unfinished claim over once its lease ended); the
-- response it keeps (status > 0, headers as JSON, body) is replayed until
-- expires_at. Times are unix microseconds. No foreign key: a row costs one
-- index entry, and expired rows are purged by expires_at.
CREATE TABLE idempotency_keys (
    tenant_id    TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    token        TEXT NOT NULL,
    lease_until  BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    headers      TEXT NOT NULL DEFAULT '',
    body         BYTEA,
    PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
