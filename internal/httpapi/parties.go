package httpapi

import (
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// partyRequest is the body of POST and PUT of buyers. The spec's snake_case
// names (id_type, id_value, is_draft) and their camelCase twins are both
// accepted; both with different values is a 422. What a GET answers is
// accepted back (echo), and the spec's output name is_ready too.
type partyRequest struct {
	_ struct{} `ignore:"is_ready"`

	Name                  string           `json:"name"`
	TIN                   string           `json:"tin"`
	IDType                *string          `json:"idType"`
	IDTypeSnake           *string          `json:"id_type"`
	IDValue               *string          `json:"idValue"`
	IDValueSnake          *string          `json:"id_value"`
	SSTRegistrationNumber string           `json:"sstRegistrationNumber"`
	IsDraft               *bool            `json:"isDraft"`
	IsDraftSnake          *bool            `json:"is_draft"`
	Address               einvoice.Address `json:"address"`
	Contact               einvoice.Contact `json:"contact"`
}

// sellerRequest is the body of POST and PUT of on-behalf sellers.
type sellerRequest struct {
	partyRequest
	MSICCode                     string `json:"msicCode"`
	BusinessActivityDescription  string `json:"businessActivityDescription"`
	TourismTaxRegistrationNumber string `json:"tourismTaxRegistrationNumber"`
}

func (partyRequest) echo() any  { return partyJSON{} }
func (sellerRequest) echo() any { return sellerJSON{} }

// twin returns the value of a field sent under its camelCase or snake_case
// name, and records a conflict when both came with different values.
func twin[T comparable](f einvoice.FieldErrors, camel, snake *T, camelName, snakeName string) T {
	var zero T
	switch {
	case camel != nil && snake != nil && *camel != *snake:
		f.Add(snakeName, "conflicts with %s: send one of them", camelName)
		return *camel
	case camel != nil:
		return *camel
	case snake != nil:
		return *snake
	}
	return zero
}

// spelling maps a field's name in the domain's errors to the name the
// client sent it under, for the twins sent under their snake_case name only.
func (req *partyRequest) spelling() wireNames {
	n := wireNames{}
	for _, t := range []struct {
		camel, snake bool
		name, sent   string
	}{
		{req.IDType != nil, req.IDTypeSnake != nil, "idType", "id_type"},
		{req.IDValue != nil, req.IDValueSnake != nil, "idValue", "id_value"},
		{req.IsDraft != nil, req.IsDraftSnake != nil, "isDraft", "is_draft"},
	} {
		if t.snake && !t.camel {
			n[t.name] = t.sent
		}
	}
	return n
}

func (req *partyRequest) party(f einvoice.FieldErrors) *einvoice.Party {
	return &einvoice.Party{
		Name:                  req.Name,
		TIN:                   req.TIN,
		IDType:                twin(f, req.IDType, req.IDTypeSnake, "idType", "id_type"),
		IDValue:               twin(f, req.IDValue, req.IDValueSnake, "idValue", "id_value"),
		SSTRegistrationNumber: req.SSTRegistrationNumber,
		IsDraft:               twin(f, req.IsDraft, req.IsDraftSnake, "isDraft", "is_draft"),
		Address:               req.Address,
		Contact:               req.Contact,
	}
}

// decodeParty reads a buyer or seller body. The names returned rename the
// fields of the service's errors to those the client sent.
func decodeParty(r *http.Request, kind einvoice.PartyKind) (*einvoice.Party, wireNames, error) {
	f := einvoice.FieldErrors{}
	var p *einvoice.Party
	var names wireNames
	if kind == einvoice.KindSeller {
		var req sellerRequest
		if err := decode(r, maxBody, &req); err != nil {
			return nil, nil, err
		}
		p, names = req.party(f), req.spelling()
		p.MSICCode, p.BusinessActivityDescription, p.TourismTaxRegistrationNumber =
			req.MSICCode, req.BusinessActivityDescription, req.TourismTaxRegistrationNumber
	} else {
		var req partyRequest
		if err := decode(r, maxBody, &req); err != nil {
			return nil, nil, err
		}
		p, names = req.party(f), req.spelling()
	}
	return p, names, f.Err()
}

// partyJSON is a buyer in responses; sellerJSON adds the seller's fields.
type partyJSON struct {
	*einvoice.Party
	IsReady         bool                 `json:"isReady"`
	ReadinessErrors einvoice.FieldErrors `json:"readinessErrors"`
}

type sellerJSON struct {
	partyJSON
	MSIC     string `json:"msicCode"`
	Activity string `json:"businessActivityDescription"`
	TTX      string `json:"tourismTaxRegistrationNumber"`
}

func renderParty(p *einvoice.Party) any {
	problems := einvoice.PartyReadiness(p)
	pj := partyJSON{Party: p, IsReady: len(problems) == 0, ReadinessErrors: problems}
	if p.Kind == einvoice.KindSeller {
		return sellerJSON{partyJSON: pj, MSIC: p.MSICCode, Activity: p.BusinessActivityDescription, TTX: p.TourismTaxRegistrationNumber}
	}
	return pj
}

func (s *Server) listParties(kind einvoice.PartyKind) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
		pr, err := pageRequest(r)
		if err != nil {
			return err
		}
		search := r.URL.Query().Get("search")
		if f := checkSearch(search); f != nil {
			return f.Err()
		}
		page, err := s.svc.ListParties(r.Context(), k.TenantID, kind, einvoice.PartyFilter{Search: search, PageRequest: pr})
		if err != nil {
			return err
		}
		items := make([]any, len(page.Items))
		for i, p := range page.Items {
			items[i] = renderParty(p)
		}
		okPage(w, page, items)
		return nil
	}
}

func (s *Server) createParty(kind einvoice.PartyKind) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
		p, names, err := decodeParty(r, kind)
		if err != nil {
			return err
		}
		if p, err = s.svc.CreateParty(r.Context(), k.TenantID, kind, p); err != nil {
			return names.rename(err)
		}
		ok(w, http.StatusCreated, renderParty(p))
		return nil
	}
}

func (s *Server) getParty(kind einvoice.PartyKind) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
		p, err := s.svc.GetParty(r.Context(), k.TenantID, kind, r.PathValue("id"))
		if err != nil {
			return err
		}
		ok(w, http.StatusOK, renderParty(p))
		return nil
	}
}

func (s *Server) updateParty(kind einvoice.PartyKind) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
		// The party must exist before its body is judged: a PUT on another
		// tenant's id is a 404 whatever it carries.
		old, err := s.svc.GetParty(r.Context(), k.TenantID, kind, r.PathValue("id"))
		if err != nil {
			return err
		}
		p, names, err := decodeParty(r, kind)
		if err != nil {
			return err
		}
		if p, err = s.svc.UpdateParty(r.Context(), old, p); err != nil {
			return names.rename(err)
		}
		ok(w, http.StatusOK, renderParty(p))
		return nil
	}
}

// deleted is the data of a delete.
type deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (s *Server) deleteParty(kind einvoice.PartyKind) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
		id := r.PathValue("id")
		if err := s.svc.DeleteParty(r.Context(), k.TenantID, kind, id); err != nil {
			return err
		}
		ok(w, http.StatusOK, deleted{ID: id, Deleted: true})
		return nil
	}
}
