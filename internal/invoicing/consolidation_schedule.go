package invoicing

import (
	"context"
	"errors"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ConsolidationDay is the day of the month (Malaysian time) from which the
// scheduler consolidates the previous month: the authority allows 7 days,
// and points of sale may still be sending the month's last receipts on the
// 1st.
const ConsolidationDay = 3

// scheduleLoop runs ScheduleOnce now and every schedule interval until ctx
// ends.
func (s *Service) scheduleLoop(ctx context.Context) {
	for {
		if _, err := s.ScheduleOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "consolidation scheduler", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.scheduleInterval):
		}
	}
}

// ScheduleOnce consolidates the previous month for every tenant that has
// not had it scheduled yet, from the 3rd of the month (Malaysian time):
// each tenant and month is claimed in the database, so that only one
// replica runs it, once; a month with nothing to consolidate is skipped.
// It returns how many consolidations it ran.
func (s *Service) ScheduleOnce(ctx context.Context) (int, error) {
	month, day := einvoice.PreviousMonth(s.now())
	if day < ConsolidationDay {
		return 0, nil
	}
	ts, err := s.ListTenants(ctx)
	if err != nil {
		return 0, err
	}
	ran := 0
	for _, t := range ts {
		if ctx.Err() != nil {
			return ran, ctx.Err()
		}
		claimed, err := s.store.ClaimSchedule(ctx, t.ID, month, s.now())
		if err != nil {
			return ran, err
		}
		if !claimed {
			continue
		}
		_, err = s.Consolidate(ctx, t.ID, "", month)
		var e *einvoice.Error
		switch {
		case errors.As(err, &e) && e.Code == einvoice.CodeNothingToConsolidate:
		case err != nil:
			s.log.WarnContext(ctx, "scheduled consolidation", "tenant", t.ID, "month", month, "error", err)
		default:
			ran++
		}
	}
	return ran, nil
}
