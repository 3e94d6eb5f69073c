package ubl

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNoInvoice is wrapped by Parse's error when the document has no
// Invoice element.
var ErrNoInvoice = errors.New("no Invoice element")

// Parse reads a UBL 2.1 JSON invoice document (ours, or the authority's,
// versions 1.0 to 1.3, signed or not; every type code, since every kind has
// the Invoice root) into the typed model. Numbers are read exactly (never
// through float64; an exponent is fine); elements the model does not name
// are ignored; UBLExtensions and Signature are kept as read. It refuses
// what is not JSON, a value of the wrong JSON type (a string amount, say)
// and a document without exactly one Invoice element. Encode(Parse(b))
// gives back Marshal's bytes for every document Marshal wrote.
func Parse(data []byte) (*Invoice, error) {
	var inv Invoice
	if err := json.Unmarshal(data, &inv); err != nil {
		return nil, fmt.Errorf("ubl: parse: %w", err)
	}
	if len(inv.Invoice) != 1 {
		return nil, fmt.Errorf("ubl: parse: %d Invoice elements: %w", len(inv.Invoice), ErrNoInvoice)
	}
	return &inv, nil
}
