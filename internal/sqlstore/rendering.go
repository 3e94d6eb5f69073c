package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The stored rendering of documents. A document's body is written as the
// API renders it (renderDocument), and every write keeps it so, status and
// times included (body_current), so that a read answers with the stored
// bytes: a page of the list, or one document, is then copied rather than
// decoded and encoded again. A row written before migration 00018, or
// whose body does not decode, is rendered from its columns as before.

// renderDocument is d as its JSON rendering, with the times the columns
// keep (UTC, to the microsecond), so that the bytes are what a read of the
// row renders.
func renderDocument(d *einvoice.Document) ([]byte, error) {
	c := *d
	c.CreatedAt, c.UpdatedAt = fromMicros(micros(d.CreatedAt)), fromMicros(micros(d.UpdatedAt))
	body, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("encode document: %w", err)
	}
	return body, nil
}

// render returns the row's document as JSON: the stored body when it can
// be sent as it is (currentBody), else the decoded document rendered again.
func (r *docRow) render() (json.RawMessage, error) {
	current := int64(0)
	if r.current {
		current = 1
	}
	if b, ok := currentBody(r.body, current); ok {
		return b, nil
	}
	d, err := r.decode()
	if err != nil {
		return nil, err
	}
	return renderDocument(d)
}

// renderColumns are what a JSON read needs of a row whose body is current.
const renderColumns = `id, body, body_current`

// currentBody returns the row's body when it can be sent as it is: current
// (and whole: an object, so a body cut short is never sent). body_current
// promises that the body is this package's rendering: a body changed by
// hand must set it to 0.
func currentBody(body string, current int64) (json.RawMessage, bool) {
	if current == 1 && len(body) >= 2 && body[0] == '{' && body[len(body)-1] == '}' {
		return json.RawMessage(body), true
	}
	return nil, false
}

// GetDocumentJSON returns the tenant's document as the API renders it, or
// einvoice.ErrNotFound.
func (s *Store) GetDocumentJSON(ctx context.Context, tenantID, id string) (json.RawMessage, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	var rid, body string
	var current int64
	err := s.rs.QueryRowContext(ctx, `SELECT `+renderColumns+` FROM documents WHERE id = $1 AND tenant_id = $2`, id, tenantID).Scan(&rid, &body, &current)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get document: %w", err)
	}
	if b, ok := currentBody(body, current); ok {
		return b, nil
	}
	return s.renderRow(ctx, tenantID, id)
}

// renderRow renders a row whose body is not current from all its columns.
func (s *Store) renderRow(ctx context.Context, tenantID, id string) (json.RawMessage, error) {
	r, err := scanDocRow(s.rs.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = $1 AND tenant_id = $2`, id, tenantID))
	if err != nil {
		return nil, err
	}
	return r.render()
}

// ListDocumentsJSON is ListDocuments with each document as the API renders
// it: the stored bodies, and the rows whose body is not current rendered
// from all their columns once the page is read.
func (s *Store) ListDocumentsJSON(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (einvoice.Page[json.RawMessage], error) {
	var ids []string
	page, err := listDocumentRows(ctx, s, tenantID, f, renderColumns, func(rows *sql.Rows) (string, json.RawMessage, error, error) {
		var id, body string
		var current int64
		if err := rows.Scan(&id, &body, &current); err != nil {
			return "", nil, nil, err
		}
		ids = append(ids, id)
		b, _ := currentBody(body, current)
		return id, b, nil, nil // nil: rendered below
	})
	if err != nil {
		return page, err
	}
	items := page.Items[:0]
	for i, b := range page.Items {
		if b == nil {
			if b, err = s.renderRow(ctx, tenantID, ids[i]); errors.Is(err, einvoice.ErrNotFound) {
				continue // deleted since
			} else if err != nil {
				page.Unreadable = append(page.Unreadable, einvoice.Unreadable{ID: ids[i], Err: err})
				continue
			}
		}
		items = append(items, b)
	}
	page.Items = items
	return page, nil
}
