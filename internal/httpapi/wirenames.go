package httpapi

import (
	"errors"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// wireNames maps the name of a request field in the domain's errors to the
// name the client sent it under, where the two differ (a buyer's id_type is
// the domain's idType): an error names the field as the client spelled it
// (DECISIONS 12).
type wireNames map[string]string

// rename returns err with the paths of its fields renamed: a path whose
// first segment is a key of n takes its value instead. Other errors are
// returned as they are.
func (n wireNames) rename(err error) error {
	var e *einvoice.Error
	if len(n) == 0 || !errors.As(err, &e) || len(e.Fields) == 0 {
		return err
	}
	out := *e
	out.Fields = make(einvoice.FieldErrors, len(e.Fields))
	for path, msgs := range e.Fields {
		first, rest, nested := strings.Cut(path, ".")
		if sent, ok := n[first]; ok {
			path = sent
			if nested {
				path += "." + rest
			}
		}
		out.Fields[path] = append(out.Fields[path], msgs...)
	}
	return &out
}
