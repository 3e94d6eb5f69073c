-- +goose Up
-- SQLite's 00006 adds an index for the buyers search. PostgreSQL gains
-- nothing from it (measured: the cost is lower(name) LIKE on every party of
-- the tenant, index or not), so this version only keeps both engines at the
-- same schema version.
SELECT 1;

-- +goose Down
SELECT 1;
