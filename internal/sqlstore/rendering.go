package sqlstore

import (
	"context"
	"encoding/json"
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

// render returns the row's document as JSON: the stored body when it is
// current (and whole: an object, so a body cut short is never sent), else
// the decoded document rendered again. body_current promises that the body
// is this package's rendering: a body changed by hand must set it to 0.
func (r *docRow) render() (json.RawMessage, error) {
	if r.current && len(r.body) >= 2 && r.body[0] == '{' && r.body[len(r.body)-1] == '}' {
		return json.RawMessage(r.body), nil
	}
	d, err := r.decode()
	if err != nil {
		return nil, err
	}
	return renderDocument(d)
}

// GetDocumentJSON returns the tenant's document as the API renders it, or
// einvoice.ErrNotFound.
func (s *Store) GetDocumentJSON(ctx context.Context, tenantID, id string) (json.RawMessage, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	r, err := scanDocRow(s.rs.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = $1 AND tenant_id = $2`, id, tenantID))
	if err != nil {
		return nil, err
	}
	return r.render()
}

// ListDocumentsJSON is ListDocuments with each document as the API renders
// it.
func (s *Store) ListDocumentsJSON(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (einvoice.Page[json.RawMessage], error) {
	return listDocuments(ctx, s, tenantID, f, (*docRow).render)
}
