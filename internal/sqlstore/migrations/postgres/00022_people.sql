-- +goose Up
-- People (DECISIONS 20): users sign in to the dashboard; a user has a role
-- in each tenant it belongs to. email_key is the e-mail in its compared form
-- (trimmed, lower case). password_hash is argon2id's PHC string, '' until
-- set; totp_secret is encrypted at rest; recovery_codes a JSON array of the
-- SHA-256 (hex) of the unused codes.
-- totp_last_step is the last TOTP time step a sign-in used: a code is
-- accepted once (RFC 6238 section 5.2).
CREATE TABLE users (
    id              UUID PRIMARY KEY,
    email           TEXT NOT NULL,
    email_key       TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    password_hash   TEXT NOT NULL,
    totp_secret     TEXT NOT NULL,
    totp_enabled    BOOLEAN NOT NULL,
    recovery_codes  TEXT NOT NULL,
    totp_last_step  BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE TABLE memberships (
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    user_id     UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'accountant', 'viewer')),
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- One-time links (invitations, password resets, first passwords), found by
-- the SHA-256 of their secret; used_at is set once.
CREATE TABLE user_tokens (
    hash        BYTEA PRIMARY KEY,
    kind        TEXT NOT NULL,
    email       TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    tenant_id   TEXT NOT NULL,
    role        TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX user_tokens_expiry ON user_tokens (expires_at);

-- WebAuthn credentials; credential is the library's record as JSON.
CREATE TABLE passkeys (
    id            BYTEA PRIMARY KEY,
    user_id       UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    credential    BYTEA NOT NULL,
    created_at    BIGINT NOT NULL,
    last_used_at  BIGINT
);
CREATE INDEX passkeys_user ON passkeys (user_id);

-- Failed sign-ins per e-mail (any e-mail, known or not: the lockout must
-- not tell them apart).
CREATE TABLE sign_in_failures (
    email_key  TEXT NOT NULL,
    at         BIGINT NOT NULL
);
CREATE INDEX sign_in_failures_email ON sign_in_failures (email_key, at);

-- The dashboard's sessions are now a user's, in the tenant its pages show;
-- the sessions of API keys end.
DROP TABLE dashboard_sessions;
CREATE TABLE dashboard_sessions (
    id          BYTEA PRIMARY KEY,
    user_id     UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    stage       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    revoked     BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);

ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN last_used_at;
DROP TABLE dashboard_sessions;
CREATE TABLE dashboard_sessions (
    id          BYTEA PRIMARY KEY,
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key_id      UUID NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    revoked     BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
CREATE INDEX dashboard_sessions_key ON dashboard_sessions (key_id);
DROP TABLE sign_in_failures;
DROP TABLE passkeys;
DROP TABLE user_tokens;
DROP TABLE memberships;
DROP TABLE users;
