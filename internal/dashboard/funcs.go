package dashboard

import (
	"html/template"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"amount":   formatAmount,
	"number":   formatNumber,
	"date":     func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"datetime": formatTime,
	"hint":     einvoice.AuthorityHint,
	"field":    fieldOf,
}

// formatAmount writes an amount ("" when absent).
func formatAmount(a *money.Amount) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// formatNumber writes a number as given ("" when absent).
func formatNumber(n *money.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}

// formatTime writes a time in UTC to the minute ("" when absent).
func formatTime(t any) string {
	switch v := t.(type) {
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04 UTC")
	case *time.Time:
		if v != nil {
			return v.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	return ""
}

// fieldArgs is what the "field" partial shows: a labelled input, what
// was typed, and its error beside it.
type fieldArgs struct {
	Form                    *form
	Name, Label, Type, Hint string
}

// fieldOf builds the "field" partial's arguments: (field .Form "name"
// "Label" "type").
func fieldOf(f *form, name, label, typ string) fieldArgs {
	return fieldArgs{Form: f, Name: name, Label: label, Type: typ}
}
