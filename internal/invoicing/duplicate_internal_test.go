package invoicing

import (
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestDuplicateOf: DS302 is found among the details of a step's error, and
// the original is the uuid its message names other than the document's own.
func TestDuplicateOf(t *testing.T) {
	const self, orig = "SU44HXWS5CQTPPNKPXMCCHWEVH", "ZQYIGRM2WFXXBRILPO8HJ7MQ1B"
	step := func(inner ...einvoice.AuthorityError) []einvoice.AuthorityError {
		return []einvoice.AuthorityError{{Code: "Error03", Message: "Duplicated Submission Validator", Details: inner}}
	}
	for _, tc := range []struct {
		name     string
		errs     []einvoice.AuthorityError
		dup      bool
		original string
	}{
		{"the sandbox's message", step(einvoice.AuthorityError{Code: "DS302", Message: "Duplicated submitted document with UUID " + self +
			" where the values of configured attributes match with values for the document with UUID: " + orig}), true, orig},
		{"the original named first", step(einvoice.AuthorityError{Code: "ds302", Message: "The document with UUID " + orig +
			" is duplicated by the document with UUID " + self}), true, orig},
		{"no uuid named", step(einvoice.AuthorityError{Code: "DS302", Message: "Duplicated submitted document"}), true, ""},
		{"only its own uuid", step(einvoice.AuthorityError{Code: "DS302", Message: "Duplicated submitted document with UUID " + self}), true, ""},
		{"a uuid in another error", []einvoice.AuthorityError{{Code: "RD301", Message: "Referenced document with UUID " + orig + " does not exist"}}, false, ""},
		{"the step alone, no DS302", step(), false, ""},
		{"no errors", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dup, original := duplicateOf(tc.errs, self)
			if dup != tc.dup || original != tc.original {
				t.Errorf("duplicateOf = %v, %q; want %v, %q", dup, original, tc.dup, tc.original)
			}
		})
	}
}
