-- +goose Up
-- The API's events (DECISIONS 15): a transactional outbox, each written in
-- the transaction of the change it records. seq orders them; body is the
-- JSON listed and delivered ({id, type, createdAt, data}).
CREATE TABLE events (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           UUID NOT NULL UNIQUE,
    tenant_id    UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    type         TEXT NOT NULL,
    resource_id  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    body         TEXT NOT NULL
);
CREATE INDEX events_tenant ON events (tenant_id, seq);
CREATE INDEX events_created ON events (created_at);

-- +goose Down
DROP TABLE events;
