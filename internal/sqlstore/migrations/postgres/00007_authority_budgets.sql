-- +goose Up
-- The tax authority's rate budgets (sqlstore.AuthorityBudget), shared by
-- every replica on the database. One row per key (endpoint, authority base
-- URL and client id): sends holds the send times handed out, the last
-- `limit` of them in ascending order, each as 16 digits of unix
-- microseconds (a ring that one statement reads and rewrites); nothing is
-- sent before blocked (after a 429); answer is the send time computed by
-- the last reservation, taken or not.
CREATE TABLE authority_budgets (
    key      TEXT PRIMARY KEY,
    sends    TEXT NOT NULL,
    blocked  BIGINT NOT NULL,
    answer   BIGINT NOT NULL
);

-- +goose Down
DROP TABLE authority_budgets;
