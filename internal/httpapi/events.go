package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// listEvents is GET /api/v1/events: newest first, or, with after=, the
// events after that one, oldest first.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, err := pageRequest(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := einvoice.EventFilter{Type: einvoice.EventType(q.Get("type")), After: q.Get("after"), PageRequest: pr}
	page, err := s.svc.ListEvents(r.Context(), k.TenantID, f)
	if err != nil {
		return err
	}
	items := make([]json.RawMessage, len(page.Items))
	for i, e := range page.Items {
		items[i] = e.Body
	}
	okPage(w, page, items)
	return nil
}
