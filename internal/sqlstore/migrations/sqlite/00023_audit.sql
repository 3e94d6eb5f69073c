-- +goose Up
-- The audit log (DECISIONS 20): every change made through the API, the
-- dashboard, the request page, the CLI or by the service itself. One hash
-- chain over the whole database: seq counts from 1 without gaps, prev_hash
-- is the hash of the entry before, hash is einvoice.AuditHash of the entry
-- (hex SHA-256). Entries are appended, never updated nor deleted.
-- tenant_id is no reference: the log outlives what it names, and an entry
-- may belong to no tenant (''). tseq is the entry's rank among its
-- tenant's (from 1, no gaps; not hashed: an aid of the lists, which read a
-- page's total from it instead of counting a long log).
CREATE TABLE audit_log (
    seq            BIGINT PRIMARY KEY,
    tseq           BIGINT NOT NULL,
    at             BIGINT NOT NULL,
    tenant_id      TEXT NOT NULL,
    actor_kind     TEXT NOT NULL,
    actor_id       TEXT NOT NULL,
    actor_name     TEXT NOT NULL,
    actor_email    TEXT NOT NULL,
    address        TEXT NOT NULL,
    user_agent     TEXT NOT NULL,
    action         TEXT NOT NULL,
    resource_type  TEXT NOT NULL,
    resource_id    TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    status         INTEGER NOT NULL,
    detail         TEXT NOT NULL,
    prev_hash      TEXT NOT NULL,
    hash           TEXT NOT NULL
);
CREATE INDEX audit_log_tenant ON audit_log (tenant_id, seq, tseq);
CREATE INDEX audit_log_actor ON audit_log (tenant_id, actor_id, seq);
CREATE INDEX audit_log_action ON audit_log (tenant_id, action, seq);
CREATE INDEX audit_log_resource ON audit_log (tenant_id, resource_type, resource_id, seq);
CREATE INDEX audit_log_at ON audit_log (tenant_id, at, seq);

-- The chain's head: the seq and hash of the last entry, in one row that
-- every append reads and writes in its transaction (locked FOR UPDATE on
-- PostgreSQL), so that appends of several processes make one chain; it
-- also tells when the last entries were removed.
CREATE TABLE audit_head (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    seq   BIGINT NOT NULL,
    hash  TEXT NOT NULL
);
INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

-- How many entries each tenant has (its last tseq), moved with the head.
CREATE TABLE audit_tenants (
    tenant_id  TEXT PRIMARY KEY,
    entries    BIGINT NOT NULL
);

-- +goose Down
DROP TABLE audit_tenants;
DROP TABLE audit_head;
DROP TABLE audit_log;
