package invoicing

import (
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// DocumentCounts returns how many of the tenant's documents match f at each
// status (f.Status and paging ignored): the dashboard's tabs. Each is the
// list's own count (kept per status by the store) without reading a row.
func (s *Service) DocumentCounts(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (map[einvoice.Status]int, error) {
	out := make(map[einvoice.Status]int, len(einvoice.Statuses))
	// A page past any possible end: the store counts, then reads nothing.
	f.PageRequest = einvoice.PageRequest{Page: 1 << 30, PerPage: 1}
	for _, st := range einvoice.Statuses {
		f.Status = st
		p, err := s.store.ListDocuments(ctx, tenantID, f)
		if err != nil {
			return nil, fmt.Errorf("count documents: %w", err)
		}
		out[st] = p.Total
	}
	return out, nil
}
