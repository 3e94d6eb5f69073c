-- +goose Up
-- The mail outbox (DECISIONS 21): one message to send, written in the
-- transaction that makes it due (a document turned Valid) or on its own
-- (sending again, a test message, a notice). Workers of any process claim
-- due ones with a lease. in_flight is set just before the end of the data
-- is sent: a message found in flight is never sent again. recipients is
-- {"to": [...], "bcc": [...]}.
CREATE TABLE mail_messages (
    id               TEXT PRIMARY KEY,
    tenant_id        TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    kind             TEXT NOT NULL,
    document_id      TEXT NOT NULL,
    language         TEXT NOT NULL,
    from_name        TEXT NOT NULL,
    reply_to         TEXT NOT NULL,
    recipients       TEXT NOT NULL,
    subject          TEXT NOT NULL,
    body             TEXT NOT NULL,
    attach_pdf       INTEGER NOT NULL,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL,
    next_attempt_at  BIGINT NOT NULL,
    lease_owner      TEXT NOT NULL,
    lease_until      BIGINT NOT NULL,
    in_flight        INTEGER NOT NULL,
    unconfirmed      INTEGER NOT NULL,
    last_error       TEXT NOT NULL,
    sent_at          BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX mail_messages_due ON mail_messages (next_attempt_at) WHERE state = 'pending';
CREATE INDEX mail_messages_tenant ON mail_messages (tenant_id, created_at);
CREATE INDEX mail_messages_document ON mail_messages (tenant_id, document_id, created_at);

-- A tenant's mail settings (einvoice.MailSettings as JSON); a tenant
-- without a row has the defaults.
CREATE TABLE mail_settings (
    tenant_id   TEXT PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    body        TEXT NOT NULL,
    updated_at  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE mail_settings;
DROP TABLE mail_messages;
