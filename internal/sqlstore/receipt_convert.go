package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ConvertReceipt moves the receipt to converted, conditionally on its
// status, and inserts the buyer (if any) and the invoice with its first
// event, all in one transaction: two requests racing for one receipt leave
// one invoice, the other request's transition matching no row (on
// PostgreSQL the second UPDATE waits for the first's row lock and then sees
// the converted row; on SQLite writes are serialized).
func (s *Store) ConvertReceipt(ctx context.Context, c einvoice.ReceiptConversion) error {
	if !einvoice.ValidID(c.ReceiptID) || !einvoice.ValidID(c.TenantID) {
		return einvoice.ErrNotFound
	}
	if len(c.From) == 0 || c.Invoice == nil {
		return errors.New("convert receipt: no status to move from, or no invoice")
	}
	docArgs, err := documentArgs(c.Invoice)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		q, args := transitionArgs(c.TenantID, []string{c.ReceiptID}, einvoice.ReceiptTransition{
			From: c.From, To: einvoice.ReceiptConverted, InvoiceID: c.Invoice.ID, At: c.At})
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("convert receipt: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("convert receipt: %w", err)
		} else if n == 0 {
			return receiptState(ctx, tx, c.TenantID, c.ReceiptID)
		}
		if c.Buyer != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO parties (`+partyColumns+`) VALUES
				($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28)`,
				partyArgs(c.Buyer)...); err != nil {
				return fmt.Errorf("convert receipt: insert buyer: %w", classify(err))
			}
		}
		if _, err := tx.ExecContext(ctx, insertDocument, docArgs...); err != nil {
			return docWriteError(err)
		}
		if err := bumpCount(ctx, tx, c.Invoice.TenantID, c.Invoice.Kind, c.Invoice.Status, 1); err != nil {
			return err
		}
		return insertEvent(ctx, tx, c.Invoice.ID, c.Event)
	})
}
