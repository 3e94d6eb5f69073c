package client

import (
	"context"
	"net/http"
)

// Invoice issues the receipt's own invoice for an existing buyer: created
// from the receipt (its lines, currency and payment; its number as the
// invoice's serial number), validated and submitted; the receipt becomes
// converted. CodeReceiptNotConvertible once it is converted or
// consolidated; CodeValidationFailed (nothing written) when the invoice
// would not pass validation or buyerID is unknown.
func (s *ReceiptService) Invoice(ctx context.Context, id, buyerID string, opts ...CallOption) (*Document, error) {
	var out Document
	body := struct {
		BuyerID string `json:"buyerId"`
	}{buyerID}
	if _, err := s.c.call(ctx, http.MethodPost, receiptPath(id)+"/invoice", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
