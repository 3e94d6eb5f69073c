package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Address is a postal address. State and CountryCode are codes of the
// reference lists (Codes.States, Codes.Countries).
type Address struct {
	Line1       string `json:"line1,omitempty"`
	Line2       string `json:"line2,omitempty"`
	Line3       string `json:"line3,omitempty"`
	City        string `json:"city,omitempty"`
	State       string `json:"state,omitempty"`
	PostCode    string `json:"postCode,omitempty"`
	CountryCode string `json:"countryCode,omitempty"`
}

// Contact is how to reach a party.
type Contact struct {
	Phone string `json:"phone,omitempty"`
	Email string `json:"email,omitempty"`
	Name  string `json:"name,omitempty"`
	Fax   string `json:"fax,omitempty"`
}

// The identification types of a party (IDType).
const (
	IDTypeBRN      = "BRN"
	IDTypeNRIC     = "NRIC"
	IDTypePassport = "PASSPORT"
	IDTypeArmy     = "ARMY"
)

// Party is a buyer, or a seller on whose behalf self-billed documents are
// issued. Create and Update send the fields a request takes; the service
// fills in the rest (ID, IsReady, ReadinessErrors, TINCheck, the times),
// and a Party read back may be sent again as it is.
type Party struct {
	ID                    string `json:"id,omitempty"`
	Name                  string `json:"name"`
	TIN                   string `json:"tin,omitempty"`
	IDType                string `json:"idType,omitempty"`
	IDValue               string `json:"idValue,omitempty"`
	SSTRegistrationNumber string `json:"sstRegistrationNumber,omitempty"`
	// IsDraft stores an incomplete party: it is never ready until
	// completed.
	IsDraft bool    `json:"isDraft,omitempty"`
	Address Address `json:"address"`
	Contact Contact `json:"contact"`

	// The seller's own fields (Sellers only; a buyer refuses them).
	MSICCode                     string `json:"msicCode,omitempty"`
	BusinessActivityDescription  string `json:"businessActivityDescription,omitempty"`
	TourismTaxRegistrationNumber string `json:"tourismTaxRegistrationNumber,omitempty"`

	// IsReady says whether the party is complete for the tax authority;
	// ReadinessErrors says what keeps it from being so, per field.
	IsReady         bool                `json:"isReady,omitempty"`
	ReadinessErrors map[string][]string `json:"readinessErrors,omitempty"`
	// TINCheck is the tax authority's answer on the TIN.
	TINCheck  *TINCheck `json:"tinCheck,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// The states of a TIN check (TINCheck.Status).
const (
	TINVerified   = "verified"
	TINNotFound   = "not_found"
	TINUnverified = "unverified"
)

// TINCheck is what the tax authority said of a party's TIN and id.
type TINCheck struct {
	// Status is TINVerified, TINNotFound or TINUnverified (not asked yet,
	// or the authority could not be reached).
	Status    string     `json:"status"`
	CheckedAt *time.Time `json:"checkedAt,omitempty"`
}

// PartyListOptions filter a list of parties.
type PartyListOptions struct {
	// Search matches part of the name (case-insensitive), or the whole TIN.
	Search string
	ListOptions
}

// PartyService holds the operations of buyers or of on-behalf sellers.
type PartyService struct {
	c    *Client
	path string
}

// Create stores a new party.
func (s *PartyService) Create(ctx context.Context, p *Party, opts ...CallOption) (*Party, error) {
	var out Party
	if _, err := s.c.call(ctx, http.MethodPost, s.path, nil, p, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get returns one party.
func (s *PartyService) Get(ctx context.Context, id string) (*Party, error) {
	var out Party
	if _, err := s.c.call(ctx, http.MethodGet, s.path+"/"+escape(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update replaces every field of a party with p's (a field left empty
// becomes empty).
func (s *PartyService) Update(ctx context.Context, id string, p *Party) (*Party, error) {
	var out Party
	if _, err := s.c.call(ctx, http.MethodPut, s.path+"/"+escape(id), nil, p, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes a party that no document uses (CodeBuyerInUse otherwise).
func (s *PartyService) Delete(ctx context.Context, id string) error {
	_, err := s.c.call(ctx, http.MethodDelete, s.path+"/"+escape(id), nil, nil, nil, nil)
	return err
}

// List returns one page of parties, newest first.
func (s *PartyService) List(ctx context.Context, opts *PartyListOptions) (*Page[Party], error) {
	if opts == nil {
		opts = &PartyListOptions{}
	}
	return list[Party](ctx, s.c, s.path, opts.query())
}

// All iterates over every party the options match, from opts.Page on.
func (s *PartyService) All(ctx context.Context, opts *PartyListOptions) iter.Seq2[Party, error] {
	o := PartyListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[Party], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(p Party) string { return p.ID })
}

func (o *PartyListOptions) query() url.Values {
	q := url.Values{}
	if o.Search != "" {
		q.Set("search", o.Search)
	}
	return o.ListOptions.query(q)
}
