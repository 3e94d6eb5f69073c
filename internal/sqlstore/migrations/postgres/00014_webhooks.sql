-- +goose Up
-- Webhooks: a tenant's endpoints, their secrets sealed (the previous one
-- still signs until previous_until after a rotation). events is the list
-- of subscribed types as ",a,b," for a LIKE match.
CREATE TABLE webhooks (
    id               UUID PRIMARY KEY,
    tenant_id        UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    url              TEXT NOT NULL,
    events           TEXT NOT NULL,
    description      TEXT NOT NULL,
    enabled          BOOLEAN NOT NULL,
    secret_enc       TEXT NOT NULL,
    previous_enc     TEXT NOT NULL,
    previous_until   BIGINT,
    failing_since    BIGINT,
    disabled_reason  TEXT NOT NULL,
    disabled_at      BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, created_at);

-- One event to deliver to one webhook, queued in the event's transaction.
-- Workers of any process claim due ones with a lease; a later event of a
-- resource waits while an earlier one of it is pending for the webhook.
CREATE TABLE webhook_deliveries (
    id               UUID PRIMARY KEY,
    tenant_id        UUID NOT NULL,
    webhook_id       UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_seq        BIGINT NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    resource_id      TEXT NOT NULL,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL,
    next_attempt_at  BIGINT NOT NULL,
    lease_owner      TEXT NOT NULL,
    lease_until      BIGINT NOT NULL,
    created_at       BIGINT NOT NULL,
    finished_at      BIGINT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, event_seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (webhook_id, resource_id, event_seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq);

-- Every attempt of a delivery: its time, the receiver's status, how long.
CREATE TABLE webhook_attempts (
    delivery_id  UUID NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    n            INTEGER NOT NULL,
    at           BIGINT NOT NULL,
    status_code  INTEGER NOT NULL,
    duration_ms  BIGINT NOT NULL,
    error        TEXT NOT NULL,
    PRIMARY KEY (delivery_id, n)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
