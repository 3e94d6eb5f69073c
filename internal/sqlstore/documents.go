package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// documentColumns are the columns a document is read from. Writes add
// issue_date (documentArgs' last), which is never read back: it is computed
// from the body (Document.IssueDate) and serves the list's from and to.
// body_current is 1 when the body is the document's rendering as the API
// writes it, columns included (every write since migration 00018 keeps it
// so): the JSON reads (rendering.go) then answer with the stored bytes.
const documentColumns = `id, tenant_id, kind, type_code, status, buyer_id, seller_id, serial, serial_lower, body, created_at, updated_at, body_current`

// insertDocument is the INSERT of a document from documentArgs.
const insertDocument = `INSERT INTO documents (` + documentColumns + `, issue_date) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`

func nullID(id string) sql.NullString { return sql.NullString{String: id, Valid: id != ""} }

// docBodyArg and docIssueDateArg are the indexes of the JSON body and of
// the issue date in documentArgs.
const (
	docBodyArg      = 9
	docIssueDateArg = 13
)

// dateText is the stored form of a UTC calendar date (issue_date): its
// text sorts as the dates do.
func dateText(t time.Time) string { return t.UTC().Format("2006-01-02") }

// documentArgs are the values of documentColumns for d, then its issue date.
// The body is d's rendering with its times as the columns keep them (UTC,
// to the microsecond), so that it is what a read of the row renders.
func documentArgs(d *einvoice.Document) ([]any, error) {
	body, err := renderDocument(d)
	if err != nil {
		return nil, err
	}
	return []any{d.ID, d.TenantID, string(d.Kind), d.TypeCode, string(d.Status), nullID(d.BuyerID), nullID(d.OnBehalfSellerID),
		d.InvoiceSerialNumber, strings.ToLower(d.InvoiceSerialNumber), string(body), micros(d.CreatedAt), micros(d.UpdatedAt), 1,
		dateText(d.IssueDate())}, nil
}

// docRow is a documents row as scanned, before its body is decoded.
type docRow struct {
	id, tenant, kind, typeCode, status, serial, body string
	buyer, seller                                    sql.NullString
	created, updated                                 int64
	current                                          bool
}

func scanDocRow(row interface{ Scan(...any) error }) (*docRow, error) {
	var r docRow
	var serialLower string
	var current int64
	err := row.Scan(&r.id, &r.tenant, &r.kind, &r.typeCode, &r.status, &r.buyer, &r.seller, &r.serial, &serialLower, &r.body, &r.created, &r.updated, &current)
	r.current = current == 1
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// decode returns the document of the row, or an error wrapping
// einvoice.ErrUnreadable when its body does not decode.
func (r *docRow) decode() (*einvoice.Document, error) {
	var d einvoice.Document
	if err := json.Unmarshal([]byte(r.body), &d); err != nil {
		return nil, fmt.Errorf("%w: document %s: %w", einvoice.ErrUnreadable, r.id, err)
	}
	// The columns are the truth for what they hold.
	d.ID, d.TenantID, d.Kind, d.TypeCode, d.Status = r.id, r.tenant, einvoice.DocumentKind(r.kind), r.typeCode, einvoice.Status(r.status)
	d.BuyerID, d.OnBehalfSellerID, d.InvoiceSerialNumber = r.buyer.String, r.seller.String, r.serial
	d.CreatedAt, d.UpdatedAt = fromMicros(r.created), fromMicros(r.updated)
	return &d, nil
}

func scanDocument(row interface{ Scan(...any) error }) (*einvoice.Document, error) {
	r, err := scanDocRow(row)
	if err != nil {
		return nil, err
	}
	return r.decode()
}

func insertEvent(ctx context.Context, tx *sql.Tx, docID string, e einvoice.Event) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO document_events (id, document_id, status, key_id, note, at) VALUES ($1,$2,$3,$4,$5,$6)`,
		e.ID, docID, string(e.Status), e.KeyID, e.Note, micros(e.At))
	if err != nil {
		return fmt.Errorf("insert document event: %w", err)
	}
	return nil
}

// countShards is how many rows share one count.
const countShards = 8

// bumpCount adds delta to the count of the tenant's documents of a kind and
// status, on a random shard of it.
func bumpCount(ctx context.Context, tx *sql.Tx, tenantID string, kind einvoice.DocumentKind, status einvoice.Status, delta int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO document_counts (tenant_id, kind, status, shard, n) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, kind, status, shard) DO UPDATE SET n = document_counts.n + $5`,
		tenantID, string(kind), string(status), rand.IntN(countShards), delta)
	if err != nil {
		return fmt.Errorf("document count: %w", err)
	}
	return nil
}

// moveCount moves one document from one status to another in the counts.
func moveCount(ctx context.Context, tx *sql.Tx, tenantID string, kind einvoice.DocumentKind, from, to einvoice.Status) error {
	if from == to {
		return nil
	}
	if err := bumpCount(ctx, tx, tenantID, kind, from, -1); err != nil {
		return err
	}
	return bumpCount(ctx, tx, tenantID, kind, to, 1)
}

// lockDocument reads the stored kind and status of a document, locking its
// row on PostgreSQL until the transaction ends (SQLite's one writer already
// holds the database).
func (s *Store) lockDocument(ctx context.Context, tx *sql.Tx, tenantID, id string) (einvoice.DocumentKind, einvoice.Status, error) {
	q := `SELECT kind, status FROM documents WHERE id = $1 AND tenant_id = $2`
	if s.engine == Postgres {
		q += ` FOR UPDATE`
	}
	var kind, status string
	err := tx.QueryRowContext(ctx, q, id, tenantID).Scan(&kind, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", einvoice.ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("lock document: %w", err)
	}
	return einvoice.DocumentKind(kind), einvoice.Status(status), nil
}

// docWriteError maps constraint errors of a document write.
func docWriteError(err error) error {
	err = classify(err)
	switch {
	case errors.Is(err, einvoice.ErrConflict):
		return einvoice.ErrConflict // the serial number
	case errors.Is(err, errForeignKey):
		return fmt.Errorf("document party: %w", einvoice.ErrNotFound)
	}
	return err
}

// CreateDocument inserts d with its first history event.
func (s *Store) CreateDocument(ctx context.Context, d *einvoice.Document, e einvoice.Event) error {
	args, err := documentArgs(d)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, insertDocument, args...); err != nil {
			return docWriteError(err)
		}
		if err := bumpCount(ctx, tx, d.TenantID, d.Kind, d.Status, 1); err != nil {
			return err
		}
		if err := insertEvent(ctx, tx, d.ID, e); err != nil {
			return err
		}
		d.Rendering = []byte(args[docBodyArg].(string))
		return nil
	})
}

// GetDocument returns the tenant's document, or einvoice.ErrNotFound.
func (s *Store) GetDocument(ctx context.Context, tenantID, id string) (*einvoice.Document, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	return scanDocument(s.rs.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = $1 AND tenant_id = $2`, id, tenantID))
}

// UpdateDocument replaces d if its stored status is one of from, recording
// e when it is not nil. einvoice.ErrNotFound when there is no such document,
// einvoice.ErrWrongState when its status is not in from.
func (s *Store) UpdateDocument(ctx context.Context, d *einvoice.Document, from []einvoice.Status, e *einvoice.Event) error {
	args, err := documentArgs(d)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		kind, status, err := s.lockDocument(ctx, tx, d.TenantID, d.ID)
		if err != nil {
			return err
		}
		if !slices.Contains(from, status) {
			return einvoice.ErrWrongState
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET kind=$3, type_code=$4, status=$5, buyer_id=$6, seller_id=$7,
			serial=$8, serial_lower=$9, body=$10, updated_at=$11, issue_date=$12, body_current=1 WHERE id=$1 AND tenant_id=$2`,
			append(args[:10:10], args[11], args[docIssueDateArg])...); err != nil {
			return docWriteError(err)
		}
		if kind != d.Kind {
			if err := bumpCount(ctx, tx, d.TenantID, kind, status, -1); err != nil {
				return err
			}
			if err := bumpCount(ctx, tx, d.TenantID, d.Kind, d.Status, 1); err != nil {
				return err
			}
		} else if err := moveCount(ctx, tx, d.TenantID, kind, status, d.Status); err != nil {
			return err
		}
		if e != nil {
			if err := insertEvent(ctx, tx, d.ID, *e); err != nil {
				return err
			}
		}
		d.Rendering = []byte(args[docBodyArg].(string))
		return nil
	})
}

// DeleteDocument removes the document if its status is one of from.
func (s *Store) DeleteDocument(ctx context.Context, tenantID, id string, from []einvoice.Status) error {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return einvoice.ErrNotFound
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		kind, status, err := s.lockDocument(ctx, tx, tenantID, id)
		if err != nil {
			return err
		}
		if !slices.Contains(from, status) {
			return einvoice.ErrWrongState
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = $1 AND tenant_id = $2`, id, tenantID); err != nil {
			return fmt.Errorf("delete document: %w", err)
		}
		return bumpCount(ctx, tx, tenantID, kind, status, -1)
	})
}

// TransitionDocument moves the document from one status to another if it is
// unchanged since version. The body is rendered again with the new status
// and time, so that it stays the document's rendering (body_current).
func (s *Store) TransitionDocument(ctx context.Context, tenantID, id string, from einvoice.Status, version time.Time, e einvoice.Event) error {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return einvoice.ErrNotFound
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		q := `SELECT ` + documentColumns + ` FROM documents WHERE id = $1 AND tenant_id = $2`
		if s.engine == Postgres {
			q += ` FOR UPDATE`
		}
		r, err := scanDocRow(tx.QueryRowContext(ctx, q, id, tenantID))
		if err != nil {
			return err
		}
		if einvoice.Status(r.status) != from || r.updated != micros(version) {
			return einvoice.ErrWrongState
		}
		// The issue date stays: it follows the body's dates, which a status
		// does not move. A body that does not decode stays as it is, not
		// current (its reads report it unreadable, as before).
		body, current := r.body, 0
		if d, err := r.decode(); err == nil {
			d.Status, d.UpdatedAt = e.Status, e.At
			b, err := renderDocument(d)
			if err != nil {
				return err
			}
			body, current = string(b), 1
		}
		res, err := tx.ExecContext(ctx, `UPDATE documents SET status = $1, updated_at = $2, body = $3, body_current = $4
			WHERE id = $5 AND tenant_id = $6 AND status = $7 AND updated_at = $8`,
			string(e.Status), micros(e.At), body, current, id, tenantID, string(from), micros(version))
		if err != nil {
			return fmt.Errorf("transition document: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return einvoice.ErrWrongState
		}
		if err := moveCount(ctx, tx, tenantID, einvoice.DocumentKind(r.kind), from, e.Status); err != nil {
			return err
		}
		return insertEvent(ctx, tx, id, e)
	})
}

// DocumentsBySerial returns the tenant's documents with exactly that serial.
func (s *Store) DocumentsBySerial(ctx context.Context, tenantID, serial string) ([]*einvoice.Document, error) {
	out := []*einvoice.Document{}
	if !einvoice.ValidID(tenantID) || serial == "" {
		return out, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT `+documentColumns+` FROM documents
		WHERE tenant_id = $1 AND serial_lower = $2 AND serial = $3 ORDER BY created_at, id`, tenantID, strings.ToLower(serial), serial)
	if err != nil {
		return nil, fmt.Errorf("documents by serial: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// searchUpper is the bound of a prefix range: every string that starts with
// the prefix sorts below prefix + searchUpper.
const searchUpper = "\U0010FFFF"

// ListDocuments returns one page of the tenant's documents, newest first.
func (s *Store) ListDocuments(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (einvoice.Page[*einvoice.Document], error) {
	return listDocuments(ctx, s, tenantID, f, (*docRow).decode)
}

// listDocuments reads the page of documents f selects, each row made a T by
// conv; a row conv cannot read is left out and named in Unreadable.
func listDocuments[T any](ctx context.Context, s *Store, tenantID string, f einvoice.DocumentFilter, conv func(*docRow) (T, error)) (einvoice.Page[T], error) {
	return listDocumentRows(ctx, s, tenantID, f, documentColumns, func(rows *sql.Rows) (string, T, error, error) {
		var zero T
		r, err := scanDocRow(rows)
		if err != nil {
			return "", zero, nil, err
		}
		item, err := conv(r)
		return r.id, item, err, nil
	})
}

// listDocumentRows reads the page of documents f selects, cols of each
// row, each row made a T by scan: its id and T, or the reason it cannot be
// read (left out and named in Unreadable), or an error that ends the list.
func listDocumentRows[T any](ctx context.Context, s *Store, tenantID string, f einvoice.DocumentFilter, cols string,
	scan func(*sql.Rows) (id string, item T, unreadable, err error)) (einvoice.Page[T], error) {
	page := einvoice.Page[T]{PageRequest: f.PageRequest, Items: []T{}}
	if !einvoice.ValidID(tenantID) {
		return page, nil
	}
	cond, args := documentCond(tenantID, f)
	if page.Total = f.Total; page.Total <= 0 {
		if err := s.countDocuments(ctx, tenantID, f, cond, args).Scan(&page.Total); err != nil {
			return page, fmt.Errorf("count documents: %w", err)
		}
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	from, err := s.documentsSource(ctx, tenantID, f, page.Total)
	if err != nil {
		return page, err
	}
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %s WHERE %s ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`,
		cols, from, cond, n+1, n+2), append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		id, item, unreadable, err := scan(rows)
		if err != nil {
			return page, err
		}
		if unreadable != nil { // one bad row does not take the list down
			page.Unreadable = append(page.Unreadable, einvoice.Unreadable{ID: id, Err: unreadable})
			continue
		}
		page.Items = append(page.Items, item)
	}
	return page, rows.Err()
}

// walkLimit is how many rows a page of a search or a period may walk in
// creation order to find its own (see documentsSource).
const walkLimit = 5000

// documentsSource is the FROM of a page of the documents f selects, total
// of them. A search or a period that holds many of the tenant's documents
// (a month of a busy tenant) is read walking the creation-order index and
// skipping the others, which finds a page after a few rows; SQLite's
// planner would rather read the period's whole range from its index and
// sort it (a second for 100,000 documents). A selective one is read from
// its own index and sorted, as the planner chooses. PostgreSQL's planner
// weighs this itself, from its statistics.
func (s *Store) documentsSource(ctx context.Context, tenantID string, f einvoice.DocumentFilter, total int) (string, error) {
	if s.engine == Postgres || (f.Search == "" && f.From.IsZero() && f.To.IsZero()) {
		return "documents", nil
	}
	var all int
	if err := s.countDocuments(ctx, tenantID, einvoice.DocumentFilter{Status: f.Status, Kind: f.Kind}, "", nil).Scan(&all); err != nil {
		return "", fmt.Errorf("count documents: %w", err)
	}
	// Uniformly spread, the page's last row is about (offset + per page)
	// x all / total rows deep in creation order.
	if total > 0 && int64(f.Offset()+f.PerPage)*int64(all) <= int64(walkLimit)*int64(total) {
		index := "documents_list"
		switch {
		case f.Status != "":
			index = "documents_status"
		case f.Kind != "":
			index = "documents_kind"
		}
		return "documents INDEXED BY " + index, nil
	}
	return "documents", nil
}

// documentCond is the WHERE condition of the documents f selects, and its
// arguments.
func documentCond(tenantID string, f einvoice.DocumentFilter) (string, []any) {
	cond := "tenant_id = $1"
	args := []any{tenantID}
	if f.Status != "" {
		args = append(args, string(f.Status))
		cond += fmt.Sprintf(" AND status = $%d", len(args))
	}
	if f.Kind != "" {
		args = append(args, string(f.Kind))
		cond += fmt.Sprintf(" AND kind = $%d", len(args))
	}
	if f.Search != "" {
		// A case-insensitive prefix of the serial number: an index range.
		prefix := strings.ToLower(f.Search)
		args = append(args, prefix, prefix+searchUpper)
		cond += fmt.Sprintf(" AND serial_lower >= $%d AND serial_lower < $%d", len(args)-1, len(args))
	}
	if !f.From.IsZero() {
		args = append(args, dateText(f.From))
		cond += fmt.Sprintf(" AND issue_date >= $%d", len(args))
	}
	if !f.To.IsZero() {
		args = append(args, dateText(f.To))
		cond += fmt.Sprintf(" AND issue_date <= $%d", len(args))
	}
	return cond, args
}

// CountDocumentsByStatus returns how many of the tenant's documents f
// selects at each status (f.Status and paging ignored), in one query: from
// the kept counts without search or issue-date bounds, else one pass over
// the rows the serial-number or issue-date index range selects.
func (s *Store) CountDocumentsByStatus(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (map[einvoice.Status]int, error) {
	out := map[einvoice.Status]int{}
	if !einvoice.ValidID(tenantID) {
		return out, nil
	}
	f.Status = ""
	cond, args := documentCond(tenantID, f)
	q := `SELECT status, COUNT(*) FROM documents WHERE ` + cond + ` GROUP BY status`
	if f.Search == "" && f.From.IsZero() && f.To.IsZero() {
		q = `SELECT status, CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM document_counts WHERE tenant_id = $1`
		args = args[:1]
		if f.Kind != "" {
			args = append(args, string(f.Kind))
			q += ` AND kind = $2`
		}
		q += ` GROUP BY status`
	}
	rows, err := s.rs.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("count documents by status: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("count documents by status: %w", err)
		}
		out[einvoice.Status(st)] += n
	}
	return out, rows.Err()
}

// countDocuments counts the documents a filter selects: from the kept
// counts when it has neither search nor issue-date bounds (a page 1 of
// 100,000 documents counts no rows), over the rows otherwise (the
// serial-number or issue-date index range).
func (s *Store) countDocuments(ctx context.Context, tenantID string, f einvoice.DocumentFilter, cond string, args []any) *sql.Row {
	if f.Search != "" || !f.From.IsZero() || !f.To.IsZero() {
		return s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM documents WHERE `+cond, args...)
	}
	q := `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM document_counts WHERE tenant_id = $1`
	cargs := []any{tenantID}
	if f.Status != "" {
		cargs = append(cargs, string(f.Status))
		q += fmt.Sprintf(" AND status = $%d", len(cargs))
	}
	if f.Kind != "" {
		cargs = append(cargs, string(f.Kind))
		q += fmt.Sprintf(" AND kind = $%d", len(cargs))
	}
	return s.rs.QueryRowContext(ctx, q, cargs...)
}

// DocumentHistory returns the document's events, oldest first.
func (s *Store) DocumentHistory(ctx context.Context, tenantID, id string) ([]einvoice.Event, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT e.id, e.status, e.key_id, e.note, e.at FROM document_events e
		JOIN documents d ON d.id = e.document_id WHERE e.document_id = $1 AND d.tenant_id = $2 ORDER BY e.at, e.id`, id, tenantID)
	if err != nil {
		return nil, fmt.Errorf("document history: %w", err)
	}
	defer rows.Close()
	out := []einvoice.Event{}
	for rows.Next() {
		var e einvoice.Event
		var status string
		var at int64
		if err := rows.Scan(&e.ID, &status, &e.KeyID, &e.Note, &at); err != nil {
			return nil, err
		}
		e.Status, e.At = einvoice.Status(status), fromMicros(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
