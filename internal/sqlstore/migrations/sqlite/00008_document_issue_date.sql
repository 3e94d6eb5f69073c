-- +goose Up
-- The issue date of every document (DECISIONS 5 and 9), which the list's
-- from and to bound: the UTC calendar date, as YYYY-MM-DD text, of
-- erpIssuedAt when given, else of the issue time recorded at submission
-- (authority.issuedAt), else of the creation. Every write of a document sets
-- it from the document (einvoice.Document.IssueDate); the rows already
-- stored are filled in here from their body (JSON text) and created_at. The
-- times in a body are Go's RFC 3339 (fractional seconds, then Z or +hh:mm):
-- the fraction is dropped before the date is taken, as PostgreSQL's 00008
-- does (where rounding to the microsecond would carry 23:59:59.9999999 into
-- the next day), so that no rounding can.
-- A body that is not valid JSON, or a time SQLite cannot read, falls back to
-- the next rule. The default only serves the rows of an older binary
-- written during an upgrade.
ALTER TABLE documents ADD COLUMN issue_date TEXT NOT NULL DEFAULT '';
UPDATE documents SET issue_date = COALESCE(
    CASE WHEN json_valid(body) THEN
        date(substr(json_extract(body, '$.erpIssuedAt'), 1, 19) || CASE WHEN json_extract(body, '$.erpIssuedAt') LIKE '%Z' THEN 'Z' ELSE substr(json_extract(body, '$.erpIssuedAt'), -6) END) END,
    CASE WHEN json_valid(body) THEN
        date(substr(json_extract(body, '$.authority.issuedAt'), 1, 19) || CASE WHEN json_extract(body, '$.authority.issuedAt') LIKE '%Z' THEN 'Z' ELSE substr(json_extract(body, '$.authority.issuedAt'), -6) END) END,
    date(created_at / 1000000, 'unixepoch'));
-- The list filtered by issue date: the date range first, in the list's order
-- (newest first, ties by id) within a day.
CREATE INDEX documents_issued ON documents (tenant_id, issue_date, created_at DESC, id DESC);

-- +goose Down
DROP INDEX documents_issued;
ALTER TABLE documents DROP COLUMN issue_date;
