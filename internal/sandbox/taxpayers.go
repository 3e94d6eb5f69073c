package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Taxpayer is a taxpayer the sandbox knows: one a client is bound to.
// Search TIN and taxpayer QR info answer from it.
type Taxpayer struct {
	TIN, Name, IDType, IDValue string
	SST, TTX, Email, Phone     string
	MSIC, Activity             string
	AddressLines               [3]string
	PostalZone, City           string
	State, Country             string
}

// TaxpayerQuery selects taxpayers: every non-empty field must match (TIN
// and id exactly, ignoring case; the name ignoring case and surrounding
// spaces).
type TaxpayerQuery struct {
	TIN, IDType, IDValue, Name string
}

// Matches reports whether t answers q.
func (q TaxpayerQuery) Matches(t Taxpayer) bool {
	eq := func(want, got string) bool {
		return want == "" || strings.EqualFold(strings.TrimSpace(want), strings.TrimSpace(got))
	}
	return eq(q.TIN, t.TIN) && eq(q.IDType, t.IDType) && eq(q.IDValue, t.IDValue) && eq(q.Name, t.Name)
}

// findTaxpayers returns the taxpayers matching q: registered clients' first,
// then those Options.Taxpayers finds, one per TIN.
func (s *Server) findTaxpayers(ctx context.Context, q TaxpayerQuery) ([]Taxpayer, error) {
	w := &where{}
	w.add("tin <> ''")
	for _, f := range []struct{ col, v string }{{"tin", q.TIN}, {"id_type", q.IDType}, {"id_value", q.IDValue}, {"name", q.Name}} {
		if v := strings.TrimSpace(f.v); v != "" {
			w.add("lower(" + f.col + ") = " + w.arg(strings.ToLower(v)))
		}
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT tin, name, id_type, id_value FROM sandbox_clients WHERE `+w.String()+
		` ORDER BY registered_at, client_id LIMIT 100`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("find taxpayers: %w", err)
	}
	defer rows.Close()
	var out []Taxpayer
	var tins []string
	for rows.Next() {
		var t Taxpayer
		if err := rows.Scan(&t.TIN, &t.Name, &t.IDType, &t.IDValue); err != nil {
			return nil, fmt.Errorf("read taxpayer: %w", err)
		}
		if !slices.Contains(tins, t.TIN) {
			tins = append(tins, t.TIN)
			out = append(out, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read taxpayers: %w", err)
	}
	if s.taxpayers == nil {
		return out, nil
	}
	more, err := s.taxpayers(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("find taxpayers: %w", err)
	}
	for _, t := range more {
		t.TIN = strings.ToUpper(strings.TrimSpace(t.TIN))
		if t.TIN != "" && q.Matches(t) && !slices.Contains(tins, t.TIN) {
			tins = append(tins, t.TIN)
			out = append(out, t)
		}
	}
	return out, nil
}
