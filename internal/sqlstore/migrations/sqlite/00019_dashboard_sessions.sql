-- +goose Up
-- The web dashboard (DECISIONS 18): a key's name (a person's, shown on the
-- pages and in the history), and the dashboard's sessions, kept in the
-- database so that replicas share them. A session is found by the SHA-256
-- of its token (the token itself is never stored); expires_at moves with
-- use (idle timeout), never past created_at plus the absolute lifetime.
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
CREATE TABLE dashboard_sessions (
    id          BLOB PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key_id      TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    revoked     BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
CREATE INDEX dashboard_sessions_key ON dashboard_sessions (key_id);

-- +goose Down
DROP TABLE dashboard_sessions;
ALTER TABLE api_keys DROP COLUMN name;
