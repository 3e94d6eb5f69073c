-- +goose Up
-- The issue date of every document (DECISIONS 5 and 9), which the list's
-- from and to bound: the UTC calendar date, as YYYY-MM-DD text, of
-- erpIssuedAt when given, else of the issue time recorded at submission
-- (authority.issuedAt), else of the creation. Every write of a document sets
-- it from the document (einvoice.Document.IssueDate); the rows already
-- stored are filled in here from their body (JSON text) and created_at. The
-- times in a body are Go's RFC 3339 (fractional seconds, then Z or +hh:mm):
-- the fraction is dropped before the date is taken, so that rounding to the
-- microsecond cannot carry 23:59:59.9999999 into the next day. A body that
-- is not valid JSON, or a time PostgreSQL cannot read, falls back to the
-- next rule (the function below, dropped once used, catches the errors that
-- a plain cast would fail the migration with). The default only serves the
-- rows of an older binary written during an upgrade.
ALTER TABLE documents ADD COLUMN issue_date TEXT NOT NULL DEFAULT '';

-- +goose StatementBegin
CREATE FUNCTION einvoice_00008_issue_date(body TEXT, created BIGINT) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
    j  JSONB;
    at TEXT;
BEGIN
    BEGIN
        j := body::jsonb;
    EXCEPTION WHEN others THEN
        j := NULL;
    END;
    FOREACH at IN ARRAY ARRAY[j ->> 'erpIssuedAt', j -> 'authority' ->> 'issuedAt'] LOOP
        CONTINUE WHEN at IS NULL;
        BEGIN
            RETURN to_char((substr(at, 1, 19) || CASE WHEN right(at, 1) = 'Z' THEN 'Z' ELSE right(at, 6) END)::timestamptz
                AT TIME ZONE 'UTC', 'YYYY-MM-DD');
        EXCEPTION WHEN others THEN
            NULL;
        END;
    END LOOP;
    RETURN to_char(to_timestamp(created / 1000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD');
END
$$;
-- +goose StatementEnd

UPDATE documents SET issue_date = einvoice_00008_issue_date(body, created_at);
DROP FUNCTION einvoice_00008_issue_date(TEXT, BIGINT);
-- The list filtered by issue date: the date range first, in the list's order
-- (newest first, ties by id) within a day.
CREATE INDEX documents_issued ON documents (tenant_id, issue_date, created_at DESC, id DESC);

-- +goose Down
DROP INDEX documents_issued;
ALTER TABLE documents DROP COLUMN issue_date;
