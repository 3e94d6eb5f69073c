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

	// TINCheck is the tax authority's answer on the TIN (read-only).
	TINCheck TINCheck `json:"tinCheck"`

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
	// Unreadable are the rows of the page that could not be read back, left
	// out of Items (one bad row must not take a whole list down); Total
	// still counts them.
	Unreadable []Unreadable
	PageRequest
}

// Unreadable is a stored row a list left out: its id and why (an error
// wrapping ErrUnreadable).
type Unreadable struct {
	ID  string
	Err error
}

// LastPage is the number of the last page (1 for an empty list).
func (p Page[T]) LastPage() int {
	if p.Total == 0 || p.PerPage == 0 {
		return 1
	}
	return (p.Total + p.PerPage - 1) / p.PerPage
}

// TINCheck is the tax authority's answer on a party's TIN and id.
type TINCheck struct {
	// Status is "" (never checked: no authority configured, or a special
	// TIN), verified, not_found, or unverified (the authority could not be
	// asked; it is asked again when a document naming the party is validated).
	Status TINStatus `json:"status"`
	// Key is the TIN, id type and id value that were checked.
	Key       string     `json:"-"`
	CheckedAt *time.Time `json:"checkedAt"`
}

// TINStatus is the outcome of a TIN check.
type TINStatus string

// The outcomes of a TIN check.
const (
	TINVerified   TINStatus = "verified"
	TINNotFound   TINStatus = "not_found"
	TINUnverified TINStatus = "unverified"
)

// TINKey is what a TIN check is about: the TIN with its id.
func TINKey(p *Party) string { return p.TIN + "|" + p.IDType + "|" + p.IDValue }

// NeedsTINCheck reports whether the authority must confirm the party's TIN:
// a well-formed TIN with an id, and not one of the special TINs.
func NeedsTINCheck(p *Party) bool {
	return p.TIN != "" && p.IDType != "" && p.IDValue != "" && !IsSpecialTIN(p.TIN) && CheckTIN(p.TIN) == ""
}

// TINProblem returns why the party's TIN is not confirmed, or "" when it is
// (or no check applies).
func TINProblem(p *Party) string {
	if !NeedsTINCheck(p) || p.TINCheck.Status == "" {
		return ""
	}
	switch {
	case p.TINCheck.Key != TINKey(p):
		return "has not been checked with the tax authority since it changed"
	case p.TINCheck.Status == TINNotFound:
		return "the tax authority does not know this TIN with this id type and value"
	case p.TINCheck.Status == TINUnverified:
		return "could not be checked with the tax authority yet (it is checked again when a document naming this party is validated)"
	}
	return ""
}
