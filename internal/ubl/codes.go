package ubl

import "github.com/einvoice/einvoice/internal/refdata"

// The lists of CodeMapping.List.
const (
	ListClassifications = "classifications"
	ListPaymentModes    = "payment-modes"
	ListUnitTypes       = "unit-types"
)

// CodeMapping is one row of Mappings: a code of our API and the code the
// UBL writer puts in its place for the authority.
type CodeMapping struct {
	// List is the endpoint name of our list ("classifications",
	// "payment-modes", "unit-types").
	List string `json:"list"`
	// Ours is our code, OursName its name in our list.
	Ours     string `json:"ours"`
	OursName string `json:"oursName"`
	// Authority is the code written to the authority, AuthorityName the
	// authority's name for it.
	Authority     string `json:"authority"`
	AuthorityName string `json:"authorityName"`
	// Note says why, where the choice is not obvious.
	Note string `json:"note,omitempty"`
}

// Mappings is the one table from our codes to the authority's, where the two
// lists differ (DECISIONS section 7). The API reference renders it (through
// Mapping); the writer reads it through AuthorityClassification,
// AuthorityPaymentMode and AuthorityUnit. Do not modify it.
//
// Classifications: ours (001-022) are product categories; the authority's
// (001-045) mostly name what its tax rules treat specially (reliefs,
// consolidation, self-billing). A code of ours goes to a specific code of
// the authority only where our category is, in substance, that code's
// subject; everything else goes to 022 "Others", so that no line claims a
// special treatment it may not have. Consolidated invoices write 004
// "Consolidated e-Invoice" on every line whatever the line's codes (a rule
// of the writer, not a row).
//
// Payment modes: ours 01-06 are the authority's; our 07 "Other" is the
// authority's 08 "Others" (its 07 is "Digital Bank").
//
// Unit types: our list is the authority's plus BOX and PCE, written as XBX
// (box) and H87 (piece). These rows come from refdata.AuthorityUnitCode,
// the units' one mapping; every other unit is written unchanged.
var Mappings = complete(append([]CodeMapping{
	{List: ListClassifications, Ours: "001", Authority: "022"},
	{List: ListClassifications, Ours: "002", Authority: "022"},
	{List: ListClassifications, Ours: "003", Authority: "022"},
	{List: ListClassifications, Ours: "004", Authority: "022", Note: "the authority's 003 is computers, smartphones and tablets only"},
	{List: ListClassifications, Ours: "005", Authority: "022"},
	{List: ListClassifications, Ours: "006", Authority: "022", Note: "the authority's 025 is whole motor vehicles only, not parts or services"},
	{List: ListClassifications, Ours: "007", Authority: "018"},
	{List: ListClassifications, Ours: "008", Authority: "022", Note: "the authority's medical codes (019-021, 041-043) are specific reliefs"},
	{List: ListClassifications, Ours: "009", Authority: "010"},
	{List: ListClassifications, Ours: "010", Authority: "022", Note: "the authority's 016 is interest and financing expenses only"},
	{List: ListClassifications, Ours: "011", Authority: "022", Note: "the authority's 005 is scheduled construction materials only"},
	{List: ListClassifications, Ours: "012", Authority: "022"},
	{List: ListClassifications, Ours: "013", Authority: "022"},
	{List: ListClassifications, Ours: "014", Authority: "022"},
	{List: ListClassifications, Ours: "015", Authority: "022"},
	{List: ListClassifications, Ours: "016", Authority: "022"},
	{List: ListClassifications, Ours: "017", Authority: "022"},
	{List: ListClassifications, Ours: "018", Authority: "022"},
	{List: ListClassifications, Ours: "019", Authority: "022"},
	{List: ListClassifications, Ours: "020", Authority: "022"},
	{List: ListClassifications, Ours: "021", Authority: "022", Note: "the authority's 017 is internet subscriptions only"},
	{List: ListClassifications, Ours: "022", Authority: "022"},
	{List: ListPaymentModes, Ours: "01", Authority: "01"},
	{List: ListPaymentModes, Ours: "02", Authority: "02"},
	{List: ListPaymentModes, Ours: "03", Authority: "03"},
	{List: ListPaymentModes, Ours: "04", Authority: "04"},
	{List: ListPaymentModes, Ours: "05", Authority: "05"},
	{List: ListPaymentModes, Ours: "06", Authority: "06"},
	{List: ListPaymentModes, Ours: "07", Authority: "08", Note: "the authority's 07 is Digital Bank"},
}, unitRows()...))

// authorityNames are the authority's names of the codes Mappings writes.
var authorityNames = map[string]map[string]string{
	ListClassifications: {"010": "Education fees", "018": "Land and building", "022": "Others"},
	ListPaymentModes: {
		"01": "Cash", "02": "Cheque", "03": "Bank Transfer", "04": "Credit Card",
		"05": "Debit Card", "06": "e-Wallet / Digital Wallet", "08": "Others",
	},
	ListUnitTypes: {"XBX": "Box", "H87": "piece"},
}

// unitRows are the rows of the units whose code changes.
func unitRows() []CodeMapping {
	var rows []CodeMapping
	for _, e := range refdata.UnitTypes.Entries() {
		if a := refdata.AuthorityUnitCode(e.Code); a != e.Code {
			rows = append(rows, CodeMapping{List: ListUnitTypes, Ours: e.Code, Authority: a})
		}
	}
	return rows
}

// complete fills in the names of the rows.
func complete(rows []CodeMapping) []CodeMapping {
	lists := map[string]*refdata.List{
		ListClassifications: refdata.Classifications,
		ListPaymentModes:    refdata.PaymentModes,
		ListUnitTypes:       refdata.UnitTypes,
	}
	for i := range rows {
		r := &rows[i]
		r.OursName, _ = lists[r.List].Name(r.Ours)
		r.AuthorityName = authorityNames[r.List][r.Authority]
	}
	return rows
}

// targets indexes Mappings: list -> our code -> the authority's.
var targets = func() map[string]map[string]string {
	m := map[string]map[string]string{}
	for _, r := range Mappings {
		if m[r.List] == nil {
			m[r.List] = map[string]string{}
		}
		m[r.List][r.Ours] = r.Authority
	}
	return m
}()

// Default codes.
const (
	// ClassificationOthers is the authority's "Others", for a code of ours
	// the table does not know.
	ClassificationOthers = "022"
	// ClassificationConsolidated is the authority's "Consolidated
	// e-Invoice", written on every line of a consolidated invoice.
	ClassificationConsolidated = "004"
)

// Mapping returns a copy of Mappings, for the API reference.
func Mapping() []CodeMapping { return append([]CodeMapping(nil), Mappings...) }

// AuthorityClassification returns the authority's classification code for
// one of ours, 022 "Others" for a code the table does not know.
func AuthorityClassification(ours string) string {
	if c, ok := targets[ListClassifications][ours]; ok {
		return c
	}
	return ClassificationOthers
}

// AuthorityPaymentMode returns the authority's payment mode for one of
// ours: 07 becomes 08, every other code is unchanged.
func AuthorityPaymentMode(ours string) string {
	if c, ok := targets[ListPaymentModes][ours]; ok {
		return c
	}
	return ours
}

// AuthorityUnit returns the authority's unit code for one of ours: BOX
// becomes XBX and PCE H87, every other code is unchanged.
func AuthorityUnit(ours string) string { return refdata.AuthorityUnitCode(ours) }
