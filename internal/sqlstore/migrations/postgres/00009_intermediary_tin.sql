-- +goose Up
-- The intermediary's own TIN (DECISIONS 3 and 14): in intermediary mode the
-- signing certificate carries it, not the represented taxpayer's.
ALTER TABLE tenants ADD COLUMN auth_intermediary_tin TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tenants DROP COLUMN auth_intermediary_tin;
