-- +goose Up
-- body_current: 1 when the body is the document's rendering as the API
-- writes it (status and times included), which every write keeps from now
-- on; reads then answer with the stored bytes instead of decoding and
-- encoding the document again. Rows written before are 0 until their next
-- write, and are rendered from their columns and body as before.
ALTER TABLE documents ADD COLUMN body_current SMALLINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE documents DROP COLUMN body_current;
