-- +goose Up
-- The sandbox's clients are bound to taxpayer TINs (no more trust on first
-- use): the registrations made by first logins carry no TIN, so they go,
-- and so do the tokens issued to them (their clients log in again).
DELETE FROM sandbox_tokens;
DELETE FROM sandbox_clients;
-- A registered client (einvoice sandbox client add): the TIN it logs in
-- as, the id of that taxpayer (type and value, for the TIN check), a name,
-- and the TINs it may act for as an intermediary (space-separated).
ALTER TABLE sandbox_clients ADD COLUMN tin TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_clients ADD COLUMN id_type TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_clients ADD COLUMN id_value TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_clients ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_clients ADD COLUMN represents TEXT NOT NULL DEFAULT '';
CREATE INDEX sandbox_clients_tin ON sandbox_clients (tin);
-- The taxpayer TIN a token's client is bound to.
ALTER TABLE sandbox_tokens ADD COLUMN tin TEXT NOT NULL DEFAULT '';
-- Received documents are found by their receiver's TIN.
CREATE INDEX sandbox_documents_receiver ON sandbox_documents (receiver_tin, received_at DESC, uuid DESC);
-- The keys the sandbox signs its access tokens with, shared by replicas.
CREATE TABLE sandbox_keys (
    name        TEXT PRIMARY KEY,
    secret      TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
-- The built-in sandbox finds a tenant's profile by its client id.
CREATE INDEX tenants_auth_client_id ON tenants (auth_client_id);

-- +goose Down
DROP INDEX tenants_auth_client_id;
DROP TABLE sandbox_keys;
DROP INDEX sandbox_documents_receiver;
ALTER TABLE sandbox_tokens DROP COLUMN tin;
DROP INDEX sandbox_clients_tin;
ALTER TABLE sandbox_clients DROP COLUMN represents;
ALTER TABLE sandbox_clients DROP COLUMN name;
ALTER TABLE sandbox_clients DROP COLUMN id_value;
ALTER TABLE sandbox_clients DROP COLUMN id_type;
ALTER TABLE sandbox_clients DROP COLUMN tin;
