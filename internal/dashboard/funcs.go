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
	"date":     formatDate,
	"datetime": formatTime,
	"rfc3339":  func(t time.Time) string { return t.Format(time.RFC3339) },
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

// formatDate writes the Malaysian calendar date of a time (DECISIONS 19).
func formatDate(t time.Time) string { return t.In(einvoice.MYT).Format(einvoice.DateLayout) }

// formatTime writes a time in Malaysian time to the minute, labelled MYT
// ("" when absent).
func formatTime(t any) string {
	switch v := t.(type) {
	case time.Time:
		return einvoice.FormatMYT(v)
	case *time.Time:
		if v != nil {
			return einvoice.FormatMYT(*v)
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

// areaArgs is what the "textarea" partial shows: a labelled textarea of
// rows lines, what was typed, and its error beside it.
type areaArgs struct {
	Form        *form
	Name, Label string
	Rows        int
}

// areaOf builds the "textarea" partial's arguments: (area .Form "name"
// "Label" 8).
func areaOf(f *form, name, label string, rows int) areaArgs {
	return areaArgs{Form: f, Name: name, Label: label, Rows: rows}
}

func init() { funcs["area"] = areaOf }
