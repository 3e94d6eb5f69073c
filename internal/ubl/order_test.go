package ubl_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// orderAliases: places where we write keys the samples never have there,
// checked against the order of the same element elsewhere. The samples'
// document-level TaxSubtotal has no rate; ours has Percent or, for tourism
// tax, PerUnitAmount, as the lines' TaxSubtotal does.
var orderAliases = map[string]string{
	"/Invoice/TaxTotal/TaxSubtotal": "/Invoice/InvoiceLine/TaxTotal/TaxSubtotal",
}

func keyOrdersOf(t *testing.T, data []byte) map[string][][]string {
	t.Helper()
	n, err := parseTree(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]string{}
	n.keyOrders("", out)
	return out
}

// mergeOrders merges key sequences into one order that has each of them as
// a subsequence, or reports the first that contradicts the others.
func mergeOrders(seqs [][]string) ([]string, []string) {
	var order []string
	for _, seq := range seqs {
		for i, k := range seq {
			if slices.Contains(order, k) {
				continue
			}
			at := 0
			if i > 0 {
				at = slices.Index(order, seq[i-1]) + 1
			}
			order = slices.Insert(order, at, k)
		}
	}
	for _, seq := range seqs {
		if !isSubsequence(seq, order) {
			return nil, seq
		}
	}
	return order, nil
}

func isSubsequence(seq, order []string) bool {
	j := 0
	for _, k := range seq {
		for j < len(order) && order[j] != k {
			j++
		}
		if j == len(order) {
			return false
		}
		j++
	}
	return true
}

// common returns the keys of a that are also in b, in a's order.
func common(a, b []string) []string {
	var out []string
	for _, k := range a {
		if slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

// TestElementOrder checks the order of the keys of every object we write
// (the root, Invoice, parties, addresses, lines, taxes, ...) against the
// official samples: the keys we share with the sample of the same kind come
// in the sample's order, and our keys are a subsequence of the order all
// the samples agree on at that place (so we write no key the samples never
// have there, except orderAliases).
func TestElementOrder(t *testing.T) {
	paths := samplePaths(t)
	all := map[string][][]string{}
	for _, p := range paths {
		for path, seqs := range keyOrdersOf(t, readFile(t, p)) {
			all[path] = append(all[path], seqs...)
		}
	}
	dir := filepath.Dir(paths[0])
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			same := keyOrdersOf(t, readFile(t, filepath.Join(dir, f.sample)))
			ours := keyOrdersOf(t, marshal(t, f))
			checked := 0
			for path, seqs := range ours {
				ref := all[path]
				for from, to := range orderAliases {
					if rest, ok := strings.CutPrefix(path, from); ok && (rest == "" || rest[0] == '/') {
						ref = append(slices.Clone(ref), all[to+rest]...)
					}
				}
				order, bad := mergeOrders(ref)
				if bad != nil {
					t.Fatalf("%s: the samples disagree on the order: %v", path, bad)
				}
				for _, seq := range seqs {
					checked++
					if !isSubsequence(seq, order) {
						t.Errorf("%s: keys %v, not in the samples' order %v", path, seq, order)
					}
					for _, s := range same[path] {
						if got, want := common(seq, s), common(s, seq); !slices.Equal(got, want) {
							t.Errorf("%s: shared keys in order %v, %s has %v", path, got, f.sample, want)
						}
					}
				}
			}
			for _, must := range []string{"", "/Invoice", "/Invoice/AccountingSupplierParty/Party", "/Invoice/AccountingCustomerParty/Party",
				"/Invoice/AccountingSupplierParty/Party/PostalAddress", "/Invoice/InvoiceLine", "/Invoice/InvoiceLine/TaxTotal/TaxSubtotal",
				"/Invoice/LegalMonetaryTotal", "/Invoice/TaxTotal/TaxSubtotal/TaxCategory/TaxScheme/ID"} {
				if _, ok := ours[must]; !ok {
					t.Errorf("%s not checked", must)
				}
			}
			if checked < 40 {
				t.Errorf("only %d objects checked", checked)
			}
		})
	}
}
