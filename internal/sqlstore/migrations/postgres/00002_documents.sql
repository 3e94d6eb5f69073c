-- +goose Up
-- Documents of every kind. The scalar columns serve filters, uniqueness and
-- references; body holds the rest of the document as JSON text, with every
-- amount and rate as decimal text (never a float).
CREATE TABLE documents (
    id             UUID PRIMARY KEY,
    tenant_id      UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    kind           TEXT NOT NULL,
    type_code      TEXT NOT NULL,
    status         TEXT NOT NULL,
    buyer_id       UUID REFERENCES parties (id) ON DELETE RESTRICT,
    seller_id      UUID REFERENCES parties (id) ON DELETE RESTRICT,
    serial         TEXT NOT NULL,
    serial_lower   TEXT NOT NULL,
    body           TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
-- Serial numbers are unique per tenant and authority type code (invoice and
-- consolidated invoice share 01); drafts without one are free.
CREATE UNIQUE INDEX documents_serial ON documents (tenant_id, type_code, serial) WHERE serial <> '';
CREATE INDEX documents_list ON documents (tenant_id, created_at DESC, id DESC);
CREATE INDEX documents_status ON documents (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX documents_kind ON documents (tenant_id, kind, created_at DESC, id DESC);
CREATE INDEX documents_search ON documents (tenant_id, serial_lower);
CREATE INDEX documents_buyer ON documents (buyer_id);
CREATE INDEX documents_seller ON documents (seller_id);

-- Every status change of a document, with the key that caused it.
CREATE TABLE document_events (
    id           UUID PRIMARY KEY,
    document_id  UUID NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    status       TEXT NOT NULL,
    key_id       TEXT NOT NULL,
    note         TEXT NOT NULL,
    at           BIGINT NOT NULL
);
CREATE INDEX document_events_document ON document_events (document_id, at, id);

-- +goose Down
DROP TABLE document_events;
DROP TABLE documents;
