package dashboard

import (
	"sort"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/refdata"
)

// selectArgs is what the "select" partial shows: a labelled choice of a
// code list, what was chosen, and its error beside it.
type selectArgs struct {
	Form        *form
	Name, Label string
	Options     []refdata.Entry
}

// choices are the code lists a form may offer, by name.
var choices = map[string]func() []refdata.Entry{
	"states":       refdata.States.Entries,
	"countries":    refdata.Countries.Entries,
	"idTypes":      refdata.IDTypes.Entries,
	"environments": func() []refdata.Entry { return envChoices },
	"modes":        func() []refdata.Entry { return modeChoices },
}

var (
	envChoices = []refdata.Entry{{Code: einvoice.EnvSandbox, Name: "Sandbox"}, {Code: einvoice.EnvPreprod, Name: "Pre-production"},
		{Code: einvoice.EnvProduction, Name: "Production"}}
	modeChoices = []refdata.Entry{{Code: einvoice.ModeTaxpayer, Name: "Taxpayer"}, {Code: einvoice.ModeIntermediary, Name: "Intermediary"}}
)

// selectOf builds the "select" partial's arguments: (selectField .Form
// "name" "Label" "states").
func selectOf(f *form, name, label, list string) selectArgs {
	var opts []refdata.Entry
	if c, ok := choices[list]; ok {
		opts = c()
	}
	return selectArgs{Form: f, Name: name, Label: label, Options: opts}
}

// problem is one readiness problem in words: the field and what is wrong.
type problem struct{ Field, Message string }

// problemsOf lists field errors (readiness problems) in the fields' order.
func problemsOf(errs einvoice.FieldErrors) []problem {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []problem
	for _, k := range keys {
		for _, m := range errs[k] {
			out = append(out, problem{Field: k, Message: m})
		}
	}
	return out
}

// strayErrors moves the errors of fields the form does not show into its
// message, so that no error goes unseen.
func strayErrors(f *form, shown []string) {
	for k, msgs := range f.Errors {
		known := false
		for _, s := range shown {
			known = known || s == k
		}
		if known {
			continue
		}
		for _, m := range msgs {
			if f.Message != "" {
				f.Message += " "
			}
			f.Message += k + ": " + m + "."
		}
		delete(f.Errors, k)
	}
}

func init() {
	funcs["selectField"] = selectOf
	funcs["problems"] = problemsOf
}
