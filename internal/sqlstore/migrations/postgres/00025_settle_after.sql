-- +goose Up
-- The earliest time a submit job's unknown outcome may be searched for
-- (microseconds): a call that ended without an answer may still be being
-- taken in by the authority, whose searches list a submission only once it
-- is stored. 0: at once.
ALTER TABLE submission_jobs ADD COLUMN settle_after BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE submission_jobs DROP COLUMN settle_after;
