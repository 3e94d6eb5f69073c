package einvoice

import "time"

// PartyKind tells a buyer from an on-behalf seller. Both have the same shape;
// a seller also carries its industry classification.
type PartyKind string

// The kinds of party.
const (
	KindBuyer  PartyKind = "buyer"
	KindSeller PartyKind = "seller"
)

// Address is a postal address as the authority wants it.
type Address struct {
	Line1       string `json:"line1"`
	Line2       string `json:"line2"`
	Line3       string `json:"line3"`
	City        string `json:"city"`
	State       string `json:"state"`
	PostCode    string `json:"postCode"`
	CountryCode string `json:"countryCode"`
}

// Contact is how to reach a party.
type Contact struct {
	Phone string `json:"phone"`
	Email string `json:"email"`
	Name  string `json:"name"`
	Fax   string `json:"fax"`
}

// Party is a buyer (the customer on invoices and notes) or an on-behalf
// seller (the supplier on self-billed documents) of one tenant.
type Party struct {
	ID                    string    `json:"id"`
	TenantID              string    `json:"-"`
	Kind                  PartyKind `json:"-"`
	Name                  string    `json:"name"`
	TIN                   string    `json:"tin"`
	IDType                string    `json:"idType"`
	IDValue               string    `json:"idValue"`
	SSTRegistrationNumber string    `json:"sstRegistrationNumber"`
	IsDraft               bool      `json:"isDraft"`
	Address               Address   `json:"address"`
	Contact               Contact   `json:"contact"`

	// Seller only: the industry classification (MSIC, "00000" when not
	// applicable) with its description, and the tourism tax registration.
	MSICCode                     string `json:"-"`
	BusinessActivityDescription  string `json:"-"`
	TourismTaxRegistrationNumber string `json:"-"`

	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// PartyFilter selects a page of parties. Search matches the name
// (case-insensitive substring) or the TIN (exact, case-insensitive).
type PartyFilter struct {
	Search string
	PageRequest
}

// PageRequest is a page number (from 1) and a page size.
type PageRequest struct {
	Page    int
	PerPage int
}

// Paging limits of every list.
const (
	DefaultPerPage = 15
	MaxPerPage     = 100
)

// Offset is the number of rows before the page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.PerPage }

// Page is one page of a list, with the total count of matching rows.
type Page[T any] struct {
	Items []T
	Total int
	PageRequest
}

// LastPage is the number of the last page (1 for an empty list).
func (p Page[T]) LastPage() int {
	if p.Total == 0 || p.PerPage == 0 {
		return 1
	}
	return (p.Total + p.PerPage - 1) / p.PerPage
}
