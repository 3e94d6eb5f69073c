-- +goose Up
-- Passkey ceremonies begun and not yet finished (DECISIONS 20): found by
-- the SHA-256 of their challenge, taken once, for a few minutes; user_id
-- is the registering user, '' for a sign-in with a passkey. data is the
-- WebAuthn library's session data (JSON).
CREATE TABLE passkey_challenges (
    hash        BYTEA PRIMARY KEY,
    user_id     TEXT NOT NULL,
    data        BYTEA NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);

-- +goose Down
DROP TABLE passkey_challenges;
