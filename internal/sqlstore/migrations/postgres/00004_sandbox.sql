-- +goose Up
-- The built-in tax-authority sandbox (package sandbox). Its own tables, so
-- that its state survives restarts and replicas on one database share it.
-- Times are unix microseconds (UTC) in BIGINT columns; amounts are the
-- decimal text the documents carried.

-- Access tokens, by the SHA-256 (hex) of the token.
CREATE TABLE sandbox_tokens (
    token_hash    TEXT PRIMARY KEY,
    client_id     TEXT NOT NULL,
    on_behalf_of  TEXT NOT NULL,
    issued_at     BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL
);
CREATE INDEX sandbox_tokens_expiry ON sandbox_tokens (expires_at);

-- Clients, registered by their first login: later logins of a client id
-- must present the same secret (trust on first use).
CREATE TABLE sandbox_clients (
    client_id      TEXT PRIMARY KEY,
    secret_hash    TEXT NOT NULL,
    registered_at  BIGINT NOT NULL
);

-- Submission payload hashes, for the 10-minute DuplicateSubmission rule.
CREATE TABLE sandbox_payloads (
    client_id     TEXT NOT NULL,
    payload_hash  TEXT NOT NULL,
    received_at   BIGINT NOT NULL,
    PRIMARY KEY (client_id, payload_hash)
);
CREATE INDEX sandbox_payloads_received ON sandbox_payloads (received_at);

-- Submissions with at least one accepted document.
CREATE TABLE sandbox_submissions (
    uid             TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL,
    on_behalf_of    TEXT NOT NULL,
    received_at     BIGINT NOT NULL,
    document_count  INTEGER NOT NULL
);

-- Accepted documents. The verdict is decided at submission and shown once
-- validated_at has passed (status Submitted before).
CREATE TABLE sandbox_documents (
    uuid                  TEXT PRIMARY KEY,
    submission_uid        TEXT NOT NULL REFERENCES sandbox_submissions (uid),
    position              INTEGER NOT NULL,
    client_id             TEXT NOT NULL,
    on_behalf_of          TEXT NOT NULL,
    internal_id           TEXT NOT NULL,
    type_code             TEXT NOT NULL,
    type_version          TEXT NOT NULL,
    issuer_tin            TEXT NOT NULL,
    issuer_name           TEXT NOT NULL,
    receiver_tin          TEXT NOT NULL,
    receiver_name         TEXT NOT NULL,
    date_time_issued      TEXT NOT NULL,
    issued_at             BIGINT,
    total_excluding_tax   TEXT NOT NULL,
    total_discount        TEXT NOT NULL,
    total_net_amount      TEXT NOT NULL,
    total_payable_amount  TEXT NOT NULL,
    received_at           BIGINT NOT NULL,
    validated_at          BIGINT NOT NULL,
    verdict               TEXT NOT NULL CHECK (verdict IN ('Valid', 'Invalid')),
    long_id               TEXT NOT NULL,
    validation            TEXT NOT NULL,
    document              TEXT NOT NULL,
    cancelled_at          BIGINT,
    reject_requested_at   BIGINT,
    status_reason         TEXT
);
CREATE INDEX sandbox_documents_submission ON sandbox_documents (submission_uid, position);
CREATE INDEX sandbox_documents_client ON sandbox_documents (client_id, received_at DESC, uuid DESC);

-- Which documents reference which (credit, debit and refund notes), for
-- the Referenced Documents rules and ActiveReferencingDocuments.
CREATE TABLE sandbox_references (
    document_uuid    TEXT NOT NULL REFERENCES sandbox_documents (uuid),
    referenced_uuid  TEXT NOT NULL REFERENCES sandbox_documents (uuid),
    PRIMARY KEY (document_uuid, referenced_uuid)
);
CREATE INDEX sandbox_references_referenced ON sandbox_references (referenced_uuid);

-- The DS302 duplicate keys (type, code number, issue date and time, issuer
-- TIN) of documents that were not Invalid, for two hours.
CREATE TABLE sandbox_duplicate_keys (
    dup_key      TEXT PRIMARY KEY,
    uuid         TEXT NOT NULL,
    received_at  BIGINT NOT NULL
);
CREATE INDEX sandbox_duplicate_keys_received ON sandbox_duplicate_keys (received_at);

-- Per-client, per-endpoint rate-limit windows (one minute).
CREATE TABLE sandbox_rate_windows (
    key_id        TEXT PRIMARY KEY,
    window_start  BIGINT NOT NULL,
    hits          BIGINT NOT NULL
);

-- +goose Down
DROP TABLE sandbox_clients;
DROP TABLE sandbox_rate_windows;
DROP TABLE sandbox_duplicate_keys;
DROP TABLE sandbox_references;
DROP TABLE sandbox_documents;
DROP TABLE sandbox_submissions;
DROP TABLE sandbox_payloads;
DROP TABLE sandbox_tokens;
