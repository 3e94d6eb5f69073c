// Package refdata holds the reference code lists that the API serves at
// /api/v1/{name}: states, countries, classifications, unit types, tax types,
// currencies, payment modes and id types (see DECISIONS.md, section 7), and
// the authority's own classification codes (section 13).
//
// Two kinds of list live here:
//
//   - Lists the API spec gives in full (classifications, tax types, payment
//     modes, id types) and the short state list are written by hand in this
//     file, with the spec's codes and names (states carry the authority's
//     names), and so is the authority's short classification table (45
//     codes, its names with their stray trailing spaces trimmed).
//   - The long lists (countries, currencies, unit types) are generated into
//     zz_generated.go from maintained sources by the program in gen/, run with
//     `go generate ./internal/refdata/`. gen/main.go lists every deliberate
//     difference from its sources, so that the code sets equal the tax
//     authority's (MyInvois) tables.
//
// Every list is immutable after package initialisation and safe for
// concurrent use.
package refdata

//go:generate go run ./gen -o zz_generated.go

// Entry is one code of a reference list, as served by the API.
type Entry struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// List is an immutable code list with O(1) lookup by code.
// The zero value and a nil *List are empty lists.
type List struct {
	entries []Entry
	index   map[string]int // code -> position in entries
}

// newList builds a List over entries, which it keeps (callers must not
// modify the slice afterwards). When a code repeats, lookups see its first
// entry; the package tests reject duplicates.
func newList(entries []Entry) *List {
	index := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, dup := index[e.Code]; !dup {
			index[e.Code] = i
		}
	}
	return &List{entries: entries, index: index}
}

// Entries returns the list's entries in list order. The slice is shared by
// all callers and must not be modified; copy it (slices.Clone) before
// changing or re-sorting it.
func (l *List) Entries() []Entry {
	if l == nil {
		return nil
	}
	return l.entries
}

// Has reports whether code is in the list. The match is exact and
// case-sensitive: "myr" is not "MYR".
func (l *List) Has(code string) bool {
	if l == nil {
		return false
	}
	_, ok := l.index[code]
	return ok
}

// Name returns the name of code and true, or "" and false when code is not
// in the list (exact, case-sensitive match).
func (l *List) Name(code string) (string, bool) {
	if l == nil {
		return "", false
	}
	i, ok := l.index[code]
	if !ok {
		return "", false
	}
	return l.entries[i].Name, true
}

// Len returns the number of entries in the list.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.entries)
}

// The lists served by the API. Each is also reachable by its endpoint
// name through ByEndpoint.
var (
	// States are Malaysia's state codes 01-17 (CountrySubentityCode), with
	// the authority's names. 17 "Not Applicable" is for consolidated
	// e-invoices and addresses outside Malaysia.
	States = newList(stateEntries)

	// Countries are the authority's ISO 3166-1 alpha-3 country codes
	// (generated; see gen/main.go).
	Countries = newList(countryEntries)

	// Classifications are the spec's product classification codes
	// 001-022. They are ours: the authority's classification table differs
	// and the UBL writer maps ours to it.
	Classifications = newList(classificationEntries)

	// UnitTypes are the authority's UN/ECE Recommendation 20/21 unit codes
	// plus the spec's BOX and PCE (generated; see gen/main.go). Use
	// AuthorityUnitCode to translate a code before sending it to the
	// authority.
	UnitTypes = newList(unitTypeEntries)

	// TaxTypes are the spec's tax type codes 01-06 and E.
	TaxTypes = newList(taxTypeEntries)

	// Currencies are the authority's ISO 4217 currency codes (generated;
	// see gen/main.go).
	Currencies = newList(currencyEntries)

	// PaymentModes are the spec's payment mode codes 01-07. 07 "Other" is
	// ours; the authority's "Others" is 08 (its 07 is Digital Bank).
	PaymentModes = newList(paymentModeEntries)

	// IDTypes are the spec's party identification schemes (schemeID).
	IDTypes = newList(idTypeEntries)

	// AuthorityClassifications are the authority's own classification
	// codes 001-045 (ItemClassificationCode listID "CLASS"), with its names
	// (DECISIONS section 13). An invoice line may carry one of them, which
	// the UBL writer then writes instead of the mapping of the line's
	// classifications.
	AuthorityClassifications = newList(authorityClassificationEntries)
)

// endpoints holds the endpoint names in the stable order Endpoints returns.
var endpoints = []string{
	"states",
	"countries",
	"classifications",
	"unit-types",
	"tax-types",
	"currencies",
	"payment-modes",
	"id-types",
	"authority-classifications",
}

var byEndpoint = map[string]*List{
	"states":          States,
	"countries":       Countries,
	"classifications": Classifications,
	"unit-types":      UnitTypes,
	"tax-types":       TaxTypes,
	"currencies":      Currencies,
	"payment-modes":   PaymentModes,
	"id-types":        IDTypes,

	"authority-classifications": AuthorityClassifications,
}

// ByEndpoint returns the list served at /api/v1/{name}, where name is one of
// "states", "countries", "classifications", "unit-types", "tax-types",
// "currencies", "payment-modes", "id-types" and "authority-classifications".
// It returns nil and false for any other name (matching is exact and
// case-sensitive).
func ByEndpoint(name string) (*List, bool) {
	l, ok := byEndpoint[name]
	return l, ok
}

// Endpoints returns the nine endpoint names accepted by ByEndpoint, in a
// stable order (states, countries, classifications, unit-types, tax-types,
// currencies, payment-modes, id-types, authority-classifications). The
// caller owns the returned slice.
func Endpoints() []string {
	return append([]string(nil), endpoints...)
}

// authorityUnitCodes maps our unit codes that the authority does not accept
// to the authority's code for the same unit.
var authorityUnitCodes = map[string]string{
	"BOX": "XBX", // UN/ECE Rec 21 "Box"
	"PCE": "H87", // UN/ECE Rec 20 "piece"
}

// AuthorityUnitCode maps one of our unit codes to the code written to the
// authority: BOX becomes XBX and PCE becomes H87; every other code is
// returned unchanged (it is already the authority's).
func AuthorityUnitCode(code string) string {
	if c, ok := authorityUnitCodes[code]; ok {
		return c
	}
	return code
}

// stateEntries are the authority's state codes and names (MyInvois
// StateCodes; 00 "All States" is retired and not served).
var stateEntries = []Entry{
	{"01", "Johor"},
	{"02", "Kedah"},
	{"03", "Kelantan"},
	{"04", "Melaka"},
	{"05", "Negeri Sembilan"},
	{"06", "Pahang"},
	{"07", "Pulau Pinang"},
	{"08", "Perak"},
	{"09", "Perlis"},
	{"10", "Selangor"},
	{"11", "Terengganu"},
	{"12", "Sabah"},
	{"13", "Sarawak"},
	{"14", "Wilayah Persekutuan Kuala Lumpur"},
	{"15", "Wilayah Persekutuan Labuan"},
	{"16", "Wilayah Persekutuan Putrajaya"},
	{"17", "Not Applicable"},
}

// classificationEntries are the spec's product classifications, exactly as
// the spec gives them.
var classificationEntries = []Entry{
	{"001", "Goods - General"},
	{"002", "Services - General"},
	{"003", "Food & Beverages"},
	{"004", "Electronics"},
	{"005", "Clothing & Apparel"},
	{"006", "Automotive"},
	{"007", "Real Estate"},
	{"008", "Healthcare"},
	{"009", "Education"},
	{"010", "Financial Services"},
	{"011", "Construction"},
	{"012", "Manufacturing"},
	{"013", "Agriculture"},
	{"014", "Mining & Quarrying"},
	{"015", "Utilities"},
	{"016", "Transportation"},
	{"017", "Tourism & Hospitality"},
	{"018", "Professional Services"},
	{"019", "IT & Software"},
	{"020", "Media & Entertainment"},
	{"021", "Telecommunications"},
	{"022", "Digital Products"},
}

// taxTypeEntries are the spec's tax types, exactly as the spec gives them.
var taxTypeEntries = []Entry{
	{"01", "Sales Tax"},
	{"02", "Service Tax"},
	{"03", "Tourism Tax"},
	{"04", "High-Value Tax"},
	{"05", "Sales Tax (Petroleum)"},
	{"06", "Not Applicable"},
	{"E", "Tax Exempt"},
}

// paymentModeEntries are the spec's payment modes, exactly as the spec gives
// them.
var paymentModeEntries = []Entry{
	{"01", "Cash"},
	{"02", "Cheque"},
	{"03", "Bank Transfer"},
	{"04", "Credit Card"},
	{"05", "Debit Card"},
	{"06", "E-Wallet"},
	{"07", "Other"},
}

// idTypeEntries are the spec's id types (party identification schemeID).
var idTypeEntries = []Entry{
	{"BRN", "Business Registration Number"},
	{"NRIC", "National Identity Card Number"},
	{"PASSPORT", "Passport Number"},
	{"ARMY", "Military Id Number"},
}

// authorityClassificationEntries are the authority's classification codes
// and names (MyInvois ClassificationCodes, reference myinvois.md 3.2), the
// names trimmed of the table's trailing spaces.
var authorityClassificationEntries = []Entry{
	{"001", "Breastfeeding equipment"},
	{"002", "Child care centres and kindergartens fees"},
	{"003", "Computer, smartphone or tablet"},
	{"004", "Consolidated e-Invoice"},
	{"005", "Construction materials (as specified under Fourth Schedule of the Lembaga Pembangunan Industri Pembinaan Malaysia Act 1994)"},
	{"006", "Disbursement"},
	{"007", "Donation"},
	{"008", "e-Commerce - e-Invoice to buyer / purchaser"},
	{"009", "e-Commerce - Self-billed e-Invoice to seller, logistics, etc."},
	{"010", "Education fees"},
	{"011", "Goods on consignment (Consignor)"},
	{"012", "Goods on consignment (Consignee)"},
	{"013", "Gym membership"},
	{"014", "Insurance - Education and medical benefits"},
	{"015", "Insurance - Takaful or life insurance"},
	{"016", "Interest and financing expenses"},
	{"017", "Internet subscription"},
	{"018", "Land and building"},
	{"019", "Medical examination for learning disabilities and early intervention or rehabilitation treatments of learning disabilities"},
	{"020", "Medical examination or vaccination expenses"},
	{"021", "Medical expenses for serious diseases"},
	{"022", "Others"},
	{"023", "Petroleum operations (as defined in Petroleum (Income Tax) Act 1967)"},
	{"024", "Private retirement scheme or deferred annuity scheme"},
	{"025", "Motor vehicle"},
	{"026", "Subscription of books / journals / magazines / newspapers / other similar publications"},
	{"027", "Reimbursement"},
	{"028", "Rental of motor vehicle"},
	{"029", "EV charging facilities (Installation, rental, sale / purchase or subscription fees)"},
	{"030", "Repair and maintenance"},
	{"031", "Research and development"},
	{"032", "Foreign income"},
	{"033", "Self-billed - Betting and gaming"},
	{"034", "Self-billed - Importation of goods"},
	{"035", "Self-billed - Importation of services"},
	{"036", "Self-billed - Others"},
	{"037", "Self-billed - Monetary payment to agents, dealers or distributors"},
	{"038", "Sports equipment, rental / entry fees for sports facilities, registration in sports competition or sports training fees imposed by associations / sports clubs / companies registered with the Sports Commissioner or Companies Commission of Malaysia and carrying out sports activities as listed under the Sports Development Act 1997"},
	{"039", "Supporting equipment for disabled person"},
	{"040", "Voluntary contribution to approved provident fund"},
	{"041", "Dental examination or treatment"},
	{"042", "Fertility treatment"},
	{"043", "Treatment and home care nursing, daycare centres and residential care centers"},
	{"044", "Vouchers, gift cards, loyalty points, etc"},
	{"045", "Self-billed - Non-monetary payment to agents, dealers or distributors"},
}
