-- +goose Up
-- The tax authority's answer on a party's TIN (issue 5): status, what was
-- checked (TIN|id type|id value) and when.
ALTER TABLE parties ADD COLUMN tin_check TEXT NOT NULL DEFAULT '';
ALTER TABLE parties ADD COLUMN tin_check_key TEXT NOT NULL DEFAULT '';
ALTER TABLE parties ADD COLUMN tin_checked_at BIGINT;

-- The durable outbox: one job per document, first to send it (kind submit),
-- then to follow it to its verdict (kind poll). The intent to submit is
-- committed here before the authority is called; a worker takes a job only
-- when it is pending, due, and its lease has expired. maybe_sent is set
-- before every send: a job taken with it set is settled by asking the
-- authority before sending again. Jobs are never deleted.
CREATE TABLE submission_jobs (
    id               TEXT PRIMARY KEY,
    tenant_id        TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    document_id      TEXT NOT NULL UNIQUE REFERENCES documents (id) ON DELETE CASCADE,
    kind             TEXT NOT NULL,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL,
    maybe_sent       INTEGER NOT NULL,
    next_attempt_at  BIGINT NOT NULL,
    lease_owner      TEXT NOT NULL,
    lease_until      BIGINT NOT NULL,
    last_error       TEXT NOT NULL,
    submission_uid   TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX submission_jobs_due ON submission_jobs (next_attempt_at) WHERE state = 'pending';
CREATE INDEX submission_jobs_submission ON submission_jobs (submission_uid) WHERE state = 'pending';

-- The exact UBL bytes sent for a document (the frozen copy).
CREATE TABLE document_ubl (
    document_id  TEXT PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    tenant_id    TEXT NOT NULL,
    body         BLOB NOT NULL,
    created_at   BIGINT NOT NULL
);

-- +goose Down
DROP TABLE document_ubl;
DROP TABLE submission_jobs;
ALTER TABLE parties DROP COLUMN tin_checked_at;
ALTER TABLE parties DROP COLUMN tin_check_key;
ALTER TABLE parties DROP COLUMN tin_check;
