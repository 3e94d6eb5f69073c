package invoicing

import (
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// DocumentCounts returns how many of the tenant's documents match f at each
// status (f.Status and paging ignored): the dashboard's tabs, in one query
// (from the counts kept per status without search or issue-date bounds).
func (s *Service) DocumentCounts(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (map[einvoice.Status]int, error) {
	counts, err := s.store.CountDocumentsByStatus(ctx, tenantID, f)
	if err != nil {
		return nil, fmt.Errorf("count documents: %w", err)
	}
	out := make(map[einvoice.Status]int, len(einvoice.Statuses))
	for _, st := range einvoice.Statuses {
		out[st] = counts[st]
	}
	return out, nil
}
