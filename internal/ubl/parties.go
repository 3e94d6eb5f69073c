package ubl

import "github.com/einvoice/einvoice/internal/einvoice"

// Attributes of the party elements.
const (
	schemeTIN   = "TIN"
	schemeSST   = "SST"
	schemeTTX   = "TTX"
	listCountry = "ISO3166-1"
	agencyUNECE = "6"
)

// supplierParty writes the supplier: MSIC code with its description,
// identifications (TIN, id, SST, TTX), address, name and contact.
func supplierParty(p einvoice.PartySnapshot) Party {
	var msic []Code
	if p.MSICCode != "" {
		msic = []Code{{Value: p.MSICCode, Name: p.BusinessActivityDescription}}
	}
	return Party{
		IndustryClassificationCode: msic,
		PartyIdentification:        identifications(p, true),
		PostalAddress:              address(p.Address),
		PartyLegalEntity:           legalEntity(p.Name),
		Contact:                    contact(p.Contact),
	}
}

// customerParty writes the customer: as the supplier, without MSIC code
// and tourism tax registration, in the samples' order.
func customerParty(p einvoice.PartySnapshot) BuyerParty {
	return BuyerParty{
		PostalAddress:       address(p.Address),
		PartyLegalEntity:    legalEntity(p.Name),
		PartyIdentification: identifications(p, false),
		Contact:             contact(p.Contact),
	}
}

// identifications writes TIN, the id under its type (BRN, NRIC, PASSPORT,
// ARMY), SST and, for the supplier, TTX; SST and TTX are NA when empty.
func identifications(p einvoice.PartySnapshot, supplier bool) []PartyIdentification {
	ids := make([]PartyIdentification, 0, 4)
	add := func(v, scheme string) {
		ids = append(ids, PartyIdentification{ID: ident(v, scheme)})
	}
	add(p.TIN, schemeTIN)
	if p.IDType != "" {
		add(p.IDValue, p.IDType)
	}
	add(orNA(p.SSTRegistrationNumber), schemeSST)
	if supplier {
		add(orNA(p.TourismTaxRegistrationNumber), schemeTTX)
	}
	return ids
}

func orNA(s string) string {
	if s == "" {
		return notApplicable
	}
	return s
}

// address writes a postal address: city, postcode (when given), state,
// one to three lines (empty ones after the first left out) and country.
func address(a einvoice.Address) []Address {
	lines := []AddressLine{{Line: text(a.Line1)}}
	for _, l := range [...]string{a.Line2, a.Line3} {
		if l != "" {
			lines = append(lines, AddressLine{Line: text(l)})
		}
	}
	return []Address{{
		CityName:             text(a.City),
		PostalZone:           optText(a.PostCode),
		CountrySubentityCode: code(a.State),
		AddressLine:          lines,
		Country:              []Country{{IdentificationCode: []Code{{Value: a.CountryCode, ListID: listCountry, ListAgencyID: agencyUNECE}}}},
	}}
}

func legalEntity(name string) []PartyLegalEntity {
	return []PartyLegalEntity{{RegistrationName: text(name)}}
}

// contact writes the telephone and, when given, the e-mail address.
func contact(c einvoice.Contact) []Contact {
	return []Contact{{Telephone: text(c.Phone), ElectronicMail: optText(c.Email)}}
}

// delivery writes the shipping recipient: name, address, TIN and id, each
// when given.
func delivery(d *einvoice.Delivery) []Delivery {
	if d == nil {
		return nil
	}
	var p DeliveryParty
	if d.RecipientName != "" {
		p.PartyLegalEntity = legalEntity(d.RecipientName)
	}
	if d.RecipientAddress != nil {
		p.PostalAddress = address(*d.RecipientAddress)
	}
	if d.RecipientTin != "" {
		p.PartyIdentification = append(p.PartyIdentification, PartyIdentification{ID: ident(d.RecipientTin, schemeTIN)})
	}
	if d.RecipientIDType != "" {
		p.PartyIdentification = append(p.PartyIdentification, PartyIdentification{ID: ident(d.RecipientIDValue, d.RecipientIDType)})
	}
	if p.PartyLegalEntity == nil && p.PostalAddress == nil && p.PartyIdentification == nil {
		return nil
	}
	return []Delivery{{DeliveryParty: []DeliveryParty{p}}}
}
