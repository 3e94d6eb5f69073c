package einvoice

// PartySnapshot is a supplier or customer as written into a document's UBL.
// Submission freezes the document with a copy of both, so that later edits of
// the tenant's profile or of a buyer change neither its UBL nor its PDF.
type PartySnapshot struct {
	Name                         string  `json:"name"`
	TIN                          string  `json:"tin"`
	IDType                       string  `json:"idType"`
	IDValue                      string  `json:"idValue"`
	SSTRegistrationNumber        string  `json:"sstRegistrationNumber"`
	TourismTaxRegistrationNumber string  `json:"tourismTaxRegistrationNumber,omitempty"`
	MSICCode                     string  `json:"msicCode,omitempty"`
	BusinessActivityDescription  string  `json:"businessActivityDescription,omitempty"`
	Address                      Address `json:"address"`
	Contact                      Contact `json:"contact"`
}

// SnapshotProfile copies a tenant's profile (its party fields).
func SnapshotProfile(p Profile) PartySnapshot {
	return PartySnapshot{
		Name: p.Name, TIN: p.TIN, IDType: p.IDType, IDValue: p.IDValue,
		SSTRegistrationNumber:        p.SSTRegistrationNumber,
		TourismTaxRegistrationNumber: p.TourismTaxRegistrationNumber,
		MSICCode:                     p.MSICCode,
		BusinessActivityDescription:  p.BusinessActivityDescription,
		Address:                      p.Address, Contact: p.Contact,
	}
}

// SnapshotParty copies a buyer or an on-behalf seller.
func SnapshotParty(p *Party) PartySnapshot {
	return PartySnapshot{
		Name: p.Name, TIN: p.TIN, IDType: p.IDType, IDValue: p.IDValue,
		SSTRegistrationNumber:        p.SSTRegistrationNumber,
		TourismTaxRegistrationNumber: p.TourismTaxRegistrationNumber,
		MSICCode:                     p.MSICCode,
		BusinessActivityDescription:  p.BusinessActivityDescription,
		Address:                      p.Address, Contact: p.Contact,
	}
}

// GeneralPublic is the buyer of every consolidated invoice (DECISIONS
// section 5): the general TIN, NA everywhere else, state 17.
func GeneralPublic() PartySnapshot {
	return PartySnapshot{
		Name: "General Public", TIN: TINGeneralPublic, IDType: "BRN", IDValue: "NA",
		SSTRegistrationNumber: "NA",
		Address:               Address{Line1: "NA", City: "NA", State: "17", CountryCode: "MYS"},
		Contact:               Contact{Phone: "NA", Email: "NA"},
	}
}

// Parties returns the supplier and the customer of a document: the tenant
// supplies invoices and notes to the buyer; the on-behalf seller supplies
// self-billed documents to the tenant; a consolidated invoice goes to the
// general public. party is the document's buyer or seller (nil for a
// consolidated invoice).
func Parties(d *Document, profile Profile, party *Party) (supplier, customer PartySnapshot) {
	info, _ := InfoOf(d.Kind)
	switch {
	case info.Consolidated:
		return SnapshotProfile(profile), GeneralPublic()
	case info.SelfBilled:
		return partyOrEmpty(party), SnapshotProfile(profile)
	default:
		return SnapshotProfile(profile), partyOrEmpty(party)
	}
}

func partyOrEmpty(p *Party) PartySnapshot {
	if p == nil {
		return PartySnapshot{}
	}
	return SnapshotParty(p)
}
