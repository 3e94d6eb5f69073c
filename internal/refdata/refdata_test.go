package refdata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allLists names every list by its endpoint.
func allLists() map[string]*List {
	return map[string]*List{
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
}

func TestEntriesWellFormed(t *testing.T) {
	for name, l := range allLists() {
		t.Run(name, func(t *testing.T) {
			if l.Len() == 0 {
				t.Fatal("empty list")
			}
			if got := len(l.Entries()); got != l.Len() {
				t.Errorf("len(Entries()) = %d, Len() = %d", got, l.Len())
			}
			seen := make(map[string]int, l.Len())
			for i, e := range l.Entries() {
				if e.Code == "" || strings.TrimSpace(e.Code) != e.Code {
					t.Errorf("entry %d: bad code %q", i, e.Code)
				}
				if strings.TrimSpace(e.Name) == "" {
					t.Errorf("entry %d (%q): empty name", i, e.Code)
				}
				if j, dup := seen[e.Code]; dup {
					t.Errorf("code %q at entries %d and %d", e.Code, j, i)
				}
				seen[e.Code] = i
				if got, ok := l.Name(e.Code); !ok || got != e.Name {
					t.Errorf("Name(%q) = %q, %v; want %q, true", e.Code, got, ok, e.Name)
				}
			}
		})
	}
}

// TestSpecLists checks the lists the API spec gives, code for code and name
// for name, in order.
func TestSpecLists(t *testing.T) {
	tests := []struct {
		name string
		list *List
		want []Entry
	}{
		{"classifications", Classifications, []Entry{
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
		}},
		{"tax-types", TaxTypes, []Entry{
			{"01", "Sales Tax"},
			{"02", "Service Tax"},
			{"03", "Tourism Tax"},
			{"04", "High-Value Tax"},
			{"05", "Sales Tax (Petroleum)"},
			{"06", "Not Applicable"},
			{"E", "Tax Exempt"},
		}},
		{"payment-modes", PaymentModes, []Entry{
			{"01", "Cash"},
			{"02", "Cheque"},
			{"03", "Bank Transfer"},
			{"04", "Credit Card"},
			{"05", "Debit Card"},
			{"06", "E-Wallet"},
			{"07", "Other"},
		}},
		{"id-types", IDTypes, []Entry{
			{"BRN", "Business Registration Number"},
			{"NRIC", "National Identity Card Number"},
			{"PASSPORT", "Passport Number"},
			{"ARMY", "Military Id Number"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertEntries(t, tt.list.Entries(), tt.want)
		})
	}
}

// TestSpecUnitNames checks that the spec's names win for the unit codes the
// spec lists.
func TestSpecUnitNames(t *testing.T) {
	want := []Entry{
		{"H87", "Piece"},
		{"MON", "Month"},
		{"DAY", "Day"},
		{"HUR", "Hour"},
		{"MIN", "Minute"},
		{"SEC", "Second"},
		{"KGM", "Kilogram"},
		{"GRM", "Gram"},
		{"MTR", "Metre"},
		{"CMT", "Centimetre"},
		{"MTK", "Square Metre"},
		{"LTR", "Litre"},
		{"MLT", "Millilitre"},
		{"MTQ", "Cubic Metre"},
		{"SET", "Set"},
		{"PR", "Pair"},
		{"DZN", "Dozen (12 items)"},
		{"BOX", "Box"},
		{"PCE", "Piece (same as H87)"},
		{"C62", "One (generic unit)"},
	}
	for _, w := range want {
		if got, ok := UnitTypes.Name(w.Code); !ok || got != w.Name {
			t.Errorf("UnitTypes.Name(%q) = %q, %v; want %q, true", w.Code, got, ok, w.Name)
		}
	}
}

func TestSpecCurrencies(t *testing.T) {
	for _, code := range []string{"MYR", "USD", "EUR", "GBP", "SGD", "JPY", "CNY", "AUD", "INR", "THB"} {
		if !Currencies.Has(code) {
			t.Errorf("Currencies.Has(%q) = false, want true", code)
		}
	}
}

func TestStates(t *testing.T) {
	want := []Entry{
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
	assertEntries(t, States.Entries(), want)
}

// TestAuthorityTables checks that our code sets equal the authority's tables
// in ../shared/testdata/myinvois-codes (our classifications and payment
// modes are ours and deliberately differ, so they are not compared; the
// authority's classifications are).
func TestAuthorityTables(t *testing.T) {
	dir := authorityDir(t)
	tests := []struct {
		file     string
		nameKey  string // the authority's name field
		list     *List
		ours     []string // codes we serve that the authority's table lacks
		wantSize int      // the authority's table size
	}{
		{"StateCodes.json", "State", States, nil, 17},
		{"CountryCodes.json", "Country", Countries, nil, 253},
		{"CurrencyCodes.json", "Currency", Currencies, nil, 180},
		{"UnitTypes.json", "Name", UnitTypes, []string{"BOX", "PCE"}, 2162},
		{"ClassificationCodes.json", "Description", AuthorityClassifications, nil, 45},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			table := readAuthorityTable(t, filepath.Join(dir, tt.file), tt.nameKey)
			if len(table) != tt.wantSize {
				t.Errorf("%s has %d entries, want %d (has the authority's table changed?)", tt.file, len(table), tt.wantSize)
			}
			want := make([]string, 0, len(table)+len(tt.ours))
			for _, e := range table {
				want = append(want, e.Code)
			}
			want = append(want, tt.ours...)
			var got []string
			for _, e := range tt.list.Entries() {
				got = append(got, e.Code)
			}
			assertSameCodes(t, got, want)
		})
	}

	// The authority's classifications are written by hand with its names
	// (trimmed): compare those too, in its order.
	t.Run("ClassificationCodes.json names", func(t *testing.T) {
		table := readAuthorityTable(t, filepath.Join(dir, "ClassificationCodes.json"), "Description")
		for i := range table {
			table[i].Name = strings.TrimSpace(table[i].Name)
		}
		assertEntries(t, AuthorityClassifications.Entries(), table)
	})

	// States are written by hand with the authority's names: compare those too.
	t.Run("StateCodes.json names", func(t *testing.T) {
		table := readAuthorityTable(t, filepath.Join(dir, "StateCodes.json"), "State")
		assertEntries(t, States.Entries(), table)
	})
}

func TestByEndpoint(t *testing.T) {
	tests := []struct {
		name string
		want *List
		ok   bool
	}{
		{"states", States, true},
		{"countries", Countries, true},
		{"classifications", Classifications, true},
		{"unit-types", UnitTypes, true},
		{"tax-types", TaxTypes, true},
		{"currencies", Currencies, true},
		{"payment-modes", PaymentModes, true},
		{"id-types", IDTypes, true},
		{"authority-classifications", AuthorityClassifications, true},
		{"unknown", nil, false},
		{"", nil, false},
		{"States", nil, false},
		{"unit_types", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ByEndpoint(tt.name)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ByEndpoint(%q) = %p, %v; want %p, %v", tt.name, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestEndpoints(t *testing.T) {
	want := []string{"states", "countries", "classifications", "unit-types", "tax-types", "currencies", "payment-modes", "id-types", "authority-classifications"}
	got := Endpoints()
	if !slices.Equal(got, want) {
		t.Fatalf("Endpoints() = %q, want %q", got, want)
	}
	for _, name := range got {
		if _, ok := ByEndpoint(name); !ok {
			t.Errorf("ByEndpoint(%q) not found", name)
		}
	}
	got[0] = "changed"
	if Endpoints()[0] != "states" {
		t.Error("modifying the result of Endpoints changed the next result")
	}
}

func TestHasAndName(t *testing.T) {
	tests := []struct {
		list     *List
		code     string
		wantName string
		wantOK   bool
	}{
		{Currencies, "MYR", "Malaysian Ringgit", true},
		{Currencies, "CNH", "Yuan Renminbi (Offshore)", true},
		{Currencies, "myr", "", false},
		{Currencies, "HRK", "", false},
		{Currencies, "XTS", "", false},
		{Countries, "MYS", "Malaysia", true},
		{Countries, "XKX", "Kosovo", true},
		{Countries, "MY", "", false},
		{States, "14", "Wilayah Persekutuan Kuala Lumpur", true},
		{States, "00", "", false},
		{UnitTypes, "XBX", "Box", true},
		{UnitTypes, "HAR", "hectare", true},
		{UnitTypes, "HWE", "", false},
		{UnitTypes, "UNT", "", false},
		{UnitTypes, "c62", "", false},
		{TaxTypes, "E", "Tax Exempt", true},
		{TaxTypes, "e", "", false},
		{PaymentModes, "07", "Other", true},
		{PaymentModes, "08", "", false},
		{IDTypes, "PASSPORT", "Passport Number", true},
		{IDTypes, "TIN", "", false},
		{Classifications, "022", "Digital Products", true},
		{Classifications, "023", "", false},
		{Classifications, "", "", false},
		{AuthorityClassifications, "004", "Consolidated e-Invoice", true},
		{AuthorityClassifications, "045", "Self-billed - Non-monetary payment to agents, dealers or distributors", true},
		{AuthorityClassifications, "046", "", false},
		{AuthorityClassifications, "4", "", false},
	}
	for _, tt := range tests {
		if got := tt.list.Has(tt.code); got != tt.wantOK {
			t.Errorf("Has(%q) = %v, want %v", tt.code, got, tt.wantOK)
		}
		if name, ok := tt.list.Name(tt.code); name != tt.wantName || ok != tt.wantOK {
			t.Errorf("Name(%q) = %q, %v; want %q, %v", tt.code, name, ok, tt.wantName, tt.wantOK)
		}
	}
}

func TestNilList(t *testing.T) {
	var l *List
	if l.Len() != 0 || l.Entries() != nil || l.Has("01") {
		t.Error("nil *List is not empty")
	}
	if name, ok := l.Name("01"); name != "" || ok {
		t.Errorf("nil Name = %q, %v", name, ok)
	}
}

func TestAuthorityUnitCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BOX", "XBX"},
		{"PCE", "H87"},
		{"H87", "H87"},
		{"C62", "C62"},
		{"KGM", "KGM"},
		{"XBX", "XBX"},
		{"box", "box"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := AuthorityUnitCode(tt.in); got != tt.want {
			t.Errorf("AuthorityUnitCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Every code we send must be one the authority knows: all our unit codes
	// except BOX and PCE are the authority's, and these two map to codes in
	// the list.
	for _, e := range UnitTypes.Entries() {
		if c := AuthorityUnitCode(e.Code); c != e.Code && !UnitTypes.Has(c) {
			t.Errorf("AuthorityUnitCode(%q) = %q, not a unit code", e.Code, c)
		}
	}
}

// assertEntries fails the test unless got equals want, entry for entry.
func assertEntries(t *testing.T, got, want []Entry) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	if len(got) != len(want) {
		t.Errorf("got %d entries, want %d", len(got), len(want))
	}
	for i := range max(len(got), len(want)) {
		var g, w Entry
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
}

// assertSameCodes fails the test unless got and want hold the same codes,
// printing the missing and the extra ones.
func assertSameCodes(t *testing.T, got, want []string) {
	t.Helper()
	gotSet := make(map[string]bool, len(got))
	for _, c := range got {
		gotSet[c] = true
	}
	wantSet := make(map[string]bool, len(want))
	for _, c := range want {
		wantSet[c] = true
	}
	var missing, extra []string
	for c := range wantSet {
		if !gotSet[c] {
			missing = append(missing, c)
		}
	}
	for c := range gotSet {
		if !wantSet[c] {
			extra = append(extra, c)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("code sets differ: %d codes, want %d\nmissing (in the authority's table, not ours): %q\nextra (ours, not in the authority's table): %q",
			len(gotSet), len(wantSet), missing, extra)
	}
}

// authorityDir returns the folder of the authority's code tables,
// ../shared/testdata/myinvois-codes beside the module root, or skips the test
// when it is absent (a clone without ../shared).
func authorityDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Skipf("no go.mod above %s: cannot locate ../shared/testdata/myinvois-codes; skipping the comparison with the authority's tables", wd)
		}
		root = parent
	}
	dir := filepath.Join(root, "..", "shared", "testdata", "myinvois-codes")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("the authority's code tables are not at %s (../shared is absent in this checkout); skipping the comparison with them", dir)
	}
	return dir
}

// readAuthorityTable reads one of the authority's code tables: a JSON array
// of objects with a "Code" field and a name field called nameKey.
func readAuthorityTable(t *testing.T, path, nameKey string) []Entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]Entry, 0, len(rows))
	for i, r := range rows {
		code, ok := r["Code"]
		if !ok {
			t.Fatalf("%s: row %d has no Code", path, i)
		}
		out = append(out, Entry{Code: code, Name: r[nameKey]})
	}
	return out
}
