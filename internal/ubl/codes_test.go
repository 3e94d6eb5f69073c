package ubl_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/refdata"
	"github.com/einvoice/einvoice/internal/ubl"
)

// TestMappingsComplete: one row per classification and payment mode of
// ours, and one per unit of ours the authority writes differently.
func TestMappingsComplete(t *testing.T) {
	rows := map[string]map[string]ubl.CodeMapping{}
	for _, r := range ubl.Mapping() {
		if rows[r.List] == nil {
			rows[r.List] = map[string]ubl.CodeMapping{}
		}
		if _, dup := rows[r.List][r.Ours]; dup {
			t.Errorf("%s %s twice", r.List, r.Ours)
		}
		rows[r.List][r.Ours] = r
		if r.OursName == "" || r.AuthorityName == "" || r.Authority == "" {
			t.Errorf("incomplete row %+v", r)
		}
	}
	for list, l := range map[string]*refdata.List{ubl.ListClassifications: refdata.Classifications, ubl.ListPaymentModes: refdata.PaymentModes} {
		if len(rows[list]) != l.Len() {
			t.Errorf("%s: %d rows for %d codes", list, len(rows[list]), l.Len())
		}
		for _, e := range l.Entries() {
			if _, ok := rows[list][e.Code]; !ok {
				t.Errorf("%s %s has no row", list, e.Code)
			}
		}
	}
	units := rows[ubl.ListUnitTypes]
	if len(units) != 2 || units["BOX"].Authority != "XBX" || units["PCE"].Authority != "H87" {
		t.Errorf("unit rows %+v", units)
	}
	// Mapping returns a copy.
	m := ubl.Mapping()
	m[0].Authority = "999"
	if ubl.Mappings[0].Authority == "999" {
		t.Error("Mapping shares the table")
	}
}

func TestAuthorityCodes(t *testing.T) {
	for _, c := range []struct {
		fn       func(string) string
		in, want string
	}{
		{ubl.AuthorityClassification, "001", "022"},
		{ubl.AuthorityClassification, "004", "022"},
		{ubl.AuthorityClassification, "007", "018"},
		{ubl.AuthorityClassification, "009", "010"},
		{ubl.AuthorityClassification, "022", "022"},
		{ubl.AuthorityClassification, "999", "022"},
		{ubl.AuthorityClassification, "", "022"},
		{ubl.AuthorityPaymentMode, "01", "01"},
		{ubl.AuthorityPaymentMode, "06", "06"},
		{ubl.AuthorityPaymentMode, "07", "08"},
		{ubl.AuthorityUnit, "BOX", "XBX"},
		{ubl.AuthorityUnit, "PCE", "H87"},
		{ubl.AuthorityUnit, "C62", "C62"},
		{ubl.AuthorityUnit, "KGM", "KGM"},
	} {
		if got := c.fn(c.in); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
	for _, r := range ubl.Mappings {
		var got string
		switch r.List {
		case ubl.ListClassifications:
			got = ubl.AuthorityClassification(r.Ours)
		case ubl.ListPaymentModes:
			got = ubl.AuthorityPaymentMode(r.Ours)
		case ubl.ListUnitTypes:
			got = ubl.AuthorityUnit(r.Ours)
		}
		if got != r.Authority {
			t.Errorf("%s %s written as %s, table says %s", r.List, r.Ours, got, r.Authority)
		}
	}
}

// authorityTable reads one of the authority's code tables: code -> name.
func authorityTable(t *testing.T, file, nameField string) map[string]string {
	t.Helper()
	var rows []map[string]string
	if err := json.Unmarshal(readFile(t, filepath.Join(shared(t, "myinvois-codes"), file)), &rows); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range rows {
		m[r["Code"]] = strings.TrimSpace(r[nameField])
	}
	return m
}

// TestMappingsAgainstAuthority: every code we write is in the authority's
// table, under the name the table gives.
func TestMappingsAgainstAuthority(t *testing.T) {
	tables := map[string]map[string]string{
		ubl.ListClassifications: authorityTable(t, "ClassificationCodes.json", "Description"),
		ubl.ListPaymentModes:    authorityTable(t, "PaymentMethods.json", "Payment Method"),
		ubl.ListUnitTypes:       authorityTable(t, "UnitTypes.json", "Name"),
	}
	for _, r := range ubl.Mappings {
		name, ok := tables[r.List][r.Authority]
		if !ok {
			t.Errorf("%s %s -> %s: not the authority's", r.List, r.Ours, r.Authority)
		} else if name != r.AuthorityName {
			t.Errorf("%s %s: authority's name %q, table has %q", r.List, r.Authority, name, r.AuthorityName)
		}
	}
	if name := tables[ubl.ListClassifications][ubl.ClassificationConsolidated]; name != "Consolidated e-Invoice" {
		t.Errorf("004 is %q", name)
	}
	for _, e := range refdata.UnitTypes.Entries() {
		if _, ok := tables[ubl.ListUnitTypes][ubl.AuthorityUnit(e.Code)]; !ok {
			t.Errorf("unit %s written as %s, not the authority's", e.Code, ubl.AuthorityUnit(e.Code))
		}
	}
}
