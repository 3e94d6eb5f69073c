package einvoice

import (
	"strings"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/refdata"
)

// blank reports whether a field counts as missing.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

func checkLen(f FieldErrors, path, value string, max int) {
	if utf8.RuneCountInString(value) > max {
		f.Add(path, "must be at most %d characters", max)
	}
}

func checkCode(f FieldErrors, path string, list *refdata.List, value, endpoint string) {
	if value != "" && !list.Has(value) {
		f.Add(path, "%q is not a code of GET /api/v1/%s", value, endpoint)
	}
}

func require(f FieldErrors, path, value string) {
	if blank(value) {
		f.Add(path, "is required")
	}
}

// checkAddressInput refuses what no address may hold: lengths over the
// authority's limits and codes not in the lists.
func checkAddressInput(f FieldErrors, prefix string, a Address) {
	checkLen(f, prefix+".line1", a.Line1, MaxAddressLineLen)
	checkLen(f, prefix+".line2", a.Line2, MaxAddressLineLen)
	checkLen(f, prefix+".line3", a.Line3, MaxAddressLineLen)
	checkLen(f, prefix+".city", a.City, MaxCityLen)
	checkLen(f, prefix+".postCode", a.PostCode, MaxPostCodeLen)
	checkCode(f, prefix+".state", refdata.States, a.State, "states")
	checkCode(f, prefix+".countryCode", refdata.Countries, a.CountryCode, "countries")
}

func checkContactInput(f FieldErrors, prefix string, c Contact) {
	checkLen(f, prefix+".phone", c.Phone, MaxPhoneLen)
	checkLen(f, prefix+".email", c.Email, MaxEmailLen)
	checkLen(f, prefix+".name", c.Name, MaxNameLen)
	checkLen(f, prefix+".fax", c.Fax, MaxFaxLen)
}

// ValidatePartyInput returns what makes a create or update of p refused:
// lengths over the authority's limits, codes not in the lists and, unless p
// is a draft, a missing name, tin, idType, idValue, address (line1, city,
// state, countryCode) or contact phone. Formats (TIN, phone, e-mail,
// postcode, id lengths) do not refuse a request: they decide readiness.
// Paths use the API's camelCase names.
func ValidatePartyInput(p *Party) FieldErrors {
	f := FieldErrors{}
	checkLen(f, "name", p.Name, MaxNameLen)
	checkLen(f, "tin", p.TIN, MaxTINLen)
	checkLen(f, "idValue", p.IDValue, MaxIDValueLen)
	checkLen(f, "sstRegistrationNumber", p.SSTRegistrationNumber, MaxSSTLen)
	checkCode(f, "idType", refdata.IDTypes, p.IDType, "id-types")
	checkAddressInput(f, "address", p.Address)
	checkContactInput(f, "contact", p.Contact)
	if p.Kind == KindSeller {
		checkLen(f, "msicCode", p.MSICCode, MaxMSICLen)
		checkLen(f, "businessActivityDescription", p.BusinessActivityDescription, MaxActivityLen)
		checkLen(f, "tourismTaxRegistrationNumber", p.TourismTaxRegistrationNumber, MaxTTXLen)
	}
	if !p.IsDraft {
		require(f, "name", p.Name)
		require(f, "tin", p.TIN)
		require(f, "idType", p.IDType)
		require(f, "idValue", p.IDValue)
		require(f, "address.line1", p.Address.Line1)
		require(f, "address.city", p.Address.City)
		require(f, "address.state", p.Address.State)
		require(f, "address.countryCode", p.Address.CountryCode)
		require(f, "contact.phone", p.Contact.Phone)
	}
	return f
}

// checkIdentity adds the readiness problems of a name, TIN and id pair.
func checkIdentity(f FieldErrors, name, tin, idType, idValue string) {
	require(f, "name", name)
	if blank(tin) {
		f.Add("tin", "is required")
	} else if msg := CheckTIN(tin); msg != "" {
		f.Add("tin", "%s", msg)
	}
	require(f, "idType", idType)
	if blank(idValue) {
		f.Add("idValue", "is required")
	} else if msg := CheckIDValue(idType, idValue, tin); msg != "" {
		f.Add("idValue", "%s", msg)
	}
}

// checkAddressReady adds the readiness problems of an address; state 17
// on a Malaysian address is one unless allow17 (validate judges it by the
// document and its date: RuleState17Restricted).
func checkAddressReady(f FieldErrors, prefix string, a Address, allow17 bool) {
	require(f, prefix+".line1", a.Line1)
	require(f, prefix+".city", a.City)
	require(f, prefix+".state", a.State)
	require(f, prefix+".countryCode", a.CountryCode)
	if a.CountryCode == CountryMalaysia {
		if a.State == StateNotApplicable && !allow17 {
			f.Add(prefix+".state", "%s", state17Message)
		}
		if blank(a.PostCode) {
			f.Add(prefix+".postCode", "is required for a Malaysian address")
		} else if msg := CheckPostCode(a.CountryCode, a.PostCode); msg != "" {
			f.Add(prefix+".postCode", "%s", msg)
		}
	}
}

func checkContactReady(f FieldErrors, prefix string, c Contact) {
	if blank(c.Phone) {
		f.Add(prefix+".phone", "is required")
	} else if msg := CheckPhone(c.Phone); msg != "" {
		f.Add(prefix+".phone", "%s", msg)
	}
	if c.Email != "" {
		if msg := CheckEmail(c.Email); msg != "" {
			f.Add(prefix+".email", "%s", msg)
		}
	}
}

// state17Message says why state 17 is refused on a Malaysian address.
const state17Message = "state 17 (Not Applicable) is only for consolidated invoices and foreign parties: give the state of a Malaysian address"

// IsForeignTIN reports whether tin is the general TIN of a foreign buyer or
// supplier.
func IsForeignTIN(tin string) bool { return tin == TINForeignBuyer || tin == TINForeignSeller }

// state17TIN reports whether a party of TIN tin may give state 17 on a
// Malaysian address: a foreign party, or the General Public (the buyer of
// consolidated invoices and of the notes that adjust them).
func state17TIN(tin string) bool { return IsForeignTIN(tin) || tin == TINGeneralPublic }

// PartyReadiness returns why p is not ready for the tax authority; an empty
// result means ready. A draft is never ready. The authority's TIN check
// joins these rules with the tax-authority client. Readiness judges by the
// newest rules of DatedRules whatever their dates (state 17 on a Malaysian
// address only for a foreign party or the General Public): what is ready
// now stays ready.
func PartyReadiness(p *Party) FieldErrors { return partyReadiness(p, state17TIN(p.TIN)) }

// partyReadiness is PartyReadiness, with state 17 on a Malaysian address
// allowed when allow17.
func partyReadiness(p *Party, allow17 bool) FieldErrors {
	f := ValidatePartyInput(&Party{Kind: p.Kind, Name: p.Name, TIN: p.TIN, IDType: p.IDType,
		IDValue: p.IDValue, SSTRegistrationNumber: p.SSTRegistrationNumber, Address: p.Address,
		Contact: p.Contact, MSICCode: p.MSICCode, BusinessActivityDescription: p.BusinessActivityDescription,
		TourismTaxRegistrationNumber: p.TourismTaxRegistrationNumber, IsDraft: true})
	if p.IsDraft {
		f.Add("isDraft", "a draft is not ready: set isDraft to false")
	}
	checkIdentity(f, p.Name, p.TIN, p.IDType, p.IDValue)
	if msg := TINProblem(p); msg != "" {
		f.Add("tin", "%s", msg)
	}
	if p.SSTRegistrationNumber != "" {
		if msg := CheckSST(p.SSTRegistrationNumber); msg != "" {
			f.Add("sstRegistrationNumber", "%s", msg)
		}
	}
	checkAddressReady(f, "address", p.Address, allow17)
	checkContactReady(f, "contact", p.Contact)
	if p.Kind == KindSeller {
		if blank(p.MSICCode) {
			f.Add("msicCode", "is required for a seller")
		} else if msg := CheckMSIC(p.MSICCode); msg != "" {
			f.Add("msicCode", "%s", msg)
		}
		require(f, "businessActivityDescription", p.BusinessActivityDescription)
		if p.TourismTaxRegistrationNumber != "" {
			if msg := CheckTTX(p.TourismTaxRegistrationNumber); msg != "" {
				f.Add("tourismTaxRegistrationNumber", "%s", msg)
			}
		}
	}
	return dedupe(f)
}

// dedupe drops repeated messages of a path (input and readiness rules can
// both say "is required").
func dedupe(f FieldErrors) FieldErrors {
	for path, msgs := range f {
		seen := map[string]bool{}
		out := msgs[:0]
		for _, m := range msgs {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
		f[path] = out
	}
	return f
}

// ValidateProfileInput returns what makes a PUT /profile refused: lengths,
// code lists and the authority settings' enumerations. A profile may be
// incomplete; readiness (and validate) report that.
func ValidateProfileInput(p *Profile, a *Authority) FieldErrors {
	f := FieldErrors{}
	checkLen(f, "name", p.Name, MaxNameLen)
	checkLen(f, "tin", p.TIN, MaxTINLen)
	checkLen(f, "idValue", p.IDValue, MaxIDValueLen)
	checkCode(f, "idType", refdata.IDTypes, p.IDType, "id-types")
	checkLen(f, "sstRegistrationNumber", p.SSTRegistrationNumber, MaxSSTLen)
	checkLen(f, "tourismTaxRegistrationNumber", p.TourismTaxRegistrationNumber, MaxTTXLen)
	checkLen(f, "msicCode", p.MSICCode, MaxMSICLen)
	checkLen(f, "businessActivityDescription", p.BusinessActivityDescription, MaxActivityLen)
	checkAddressInput(f, "address", p.Address)
	checkContactInput(f, "contact", p.Contact)
	checkDate(f, "consolidationRelaxedUntil", p.ConsolidationRelaxedUntil)
	if a != nil {
		switch a.Environment {
		case EnvSandbox, EnvPreprod, EnvProduction:
		default:
			f.Add("authority.environment", "must be one of sandbox, preprod, production")
		}
		switch a.Mode {
		case ModeTaxpayer:
		case ModeIntermediary:
			if blank(a.OnBehalfOf) {
				f.Add("authority.onBehalfOf", "is required in intermediary mode (the represented TIN, or TIN:ROB)")
			}
		default:
			f.Add("authority.mode", "must be one of taxpayer, intermediary")
		}
		checkLen(f, "authority.onBehalfOf", a.OnBehalfOf, 50)
		if a.IntermediaryTIN != "" {
			if problem := CheckTIN(a.IntermediaryTIN); problem != "" {
				f.Add("authority.intermediaryTin", "%s", problem)
			}
		}
		checkLen(f, "authority.clientId", a.ClientID, 200)
		checkLen(f, "authority.clientSecret", a.ClientSecret, 500)
		checkSigningMaterial(f, a)
	}
	return f
}

// ProfileReadiness returns why the tenant's supplier details are not
// complete for the tax authority; empty means complete. Like
// PartyReadiness, it judges by the newest rules.
func ProfileReadiness(p *Profile) FieldErrors { return profileReadiness(p, false) }

// profileReadiness is ProfileReadiness, with state 17 on a Malaysian
// address allowed when allow17.
func profileReadiness(p *Profile, allow17 bool) FieldErrors {
	f := FieldErrors{}
	checkIdentity(f, p.Name, p.TIN, p.IDType, p.IDValue)
	if blank(p.SSTRegistrationNumber) {
		f.Add("sstRegistrationNumber", "is required (NA when not registered)")
	} else if msg := CheckSST(p.SSTRegistrationNumber); msg != "" {
		f.Add("sstRegistrationNumber", "%s", msg)
	}
	if blank(p.TourismTaxRegistrationNumber) {
		f.Add("tourismTaxRegistrationNumber", "is required (NA when not registered)")
	} else if msg := CheckTTX(p.TourismTaxRegistrationNumber); msg != "" {
		f.Add("tourismTaxRegistrationNumber", "%s", msg)
	}
	if blank(p.MSICCode) {
		f.Add("msicCode", "is required")
	} else if msg := CheckMSIC(p.MSICCode); msg != "" {
		f.Add("msicCode", "%s", msg)
	}
	require(f, "businessActivityDescription", p.BusinessActivityDescription)
	checkAddressReady(f, "address", p.Address, allow17)
	checkContactReady(f, "contact", p.Contact)
	return f
}
