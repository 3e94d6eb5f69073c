package invoicing

import (
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// PreviewDocument checks d as CreateDocument would for the kind and
// computes its amounts with the API's autoCalculate (einvoice.Calculate),
// storing nothing: the dashboard's totals as one types. The amounts are
// computed even when d is refused (the error is returned beside the
// document), so a half-filled form still shows its totals.
func (s *Service) PreviewDocument(ctx context.Context, tenantID string, kind einvoice.DocumentKind, d *einvoice.Document) (*einvoice.Document, error) {
	info, ok := einvoice.InfoOf(kind)
	if !ok {
		return nil, einvoice.FieldErrors{"type": {fmt.Sprintf("unknown document kind %q", kind)}}.Err()
	}
	d.AutoCalculate = true
	err := s.prepare(ctx, tenantID, info, d)
	if err != nil && einvoice.ErrorCode(err) == "" {
		return nil, err
	}
	if d.TotalPayableAmount == nil {
		einvoice.Calculate(d)
	}
	return d, err
}
