-- +goose Up
-- The built-in sandbox's test certificate authority (DECISIONS 14): made
-- once, by whichever process needs it first, so that replicas and restarts
-- trust the same one. The key is sealed as tenant secrets are (or, without
-- a sealer, stored as PEM); it is never served.
CREATE TABLE sandbox_ca (
    id          INTEGER PRIMARY KEY,
    cert_pem    TEXT NOT NULL,
    key_sealed  TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE sandbox_ca;
