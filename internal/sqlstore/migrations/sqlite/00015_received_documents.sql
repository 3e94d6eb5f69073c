-- +goose Up
-- Received documents (DECISIONS 16): what other taxpayers issued to a
-- tenant, found by the received-documents poller, once per uuid.
CREATE TABLE received_documents (
    id                      TEXT PRIMARY KEY,
    tenant_id               TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    uuid                    TEXT NOT NULL,
    submission_uid          TEXT NOT NULL,
    long_id                 TEXT NOT NULL,
    type_code               TEXT NOT NULL,
    type_name               TEXT NOT NULL,
    type_version            TEXT NOT NULL,
    number                  TEXT NOT NULL,
    issuer_tin              TEXT NOT NULL,
    issuer_name             TEXT NOT NULL,
    issuer_name_lower       TEXT NOT NULL,
    receiver_tin            TEXT NOT NULL,
    receiver_name           TEXT NOT NULL,
    issued_at               BIGINT NOT NULL,
    submitted_at            BIGINT NOT NULL,
    validated_at            BIGINT,
    status                  TEXT NOT NULL,
    cancelled_at            BIGINT,
    rejection_requested_at  BIGINT,
    status_reason           TEXT NOT NULL,
    currency                TEXT NOT NULL,
    total_excluding_tax     TEXT NOT NULL,
    total_tax               TEXT NOT NULL,
    total_including_tax     TEXT NOT NULL,
    total_payable           TEXT NOT NULL,
    lines                   TEXT NOT NULL,
    parsed                  BOOLEAN NOT NULL,
    parse_error             TEXT NOT NULL,
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL,
    UNIQUE (tenant_id, uuid)
);
CREATE INDEX received_documents_list ON received_documents (tenant_id, issued_at DESC, id DESC);

CREATE TABLE received_raw (
    received_id  TEXT PRIMARY KEY REFERENCES received_documents (id) ON DELETE CASCADE,
    tenant_id    TEXT NOT NULL,
    body         BLOB NOT NULL
);

-- One row per tenant: the poller's cursor (every received document
-- submitted before it is stored) and its lease, so that one replica at a
-- time polls a tenant.
CREATE TABLE received_pollers (
    tenant_id    TEXT PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    cursor_at    BIGINT NOT NULL,
    failures     INTEGER NOT NULL,
    next_at      BIGINT NOT NULL,
    lease_owner  TEXT NOT NULL,
    lease_until  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE received_pollers;
DROP TABLE received_raw;
DROP TABLE received_documents;
