package httpapi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestWireNames: a field the client sent under another name than the
// domain's is named as sent, nested paths too; other errors pass as they are.
func TestWireNames(t *testing.T) {
	n := wireNames{"idType": "id_type"}
	err := n.rename(&einvoice.Error{Code: einvoice.CodeValidationFailed, Fields: einvoice.FieldErrors{
		"idType": {"a"}, "idType.x": {"b"}, "idTypeX": {"c"}, "name": {"d"}}})
	var e *einvoice.Error
	if !errors.As(err, &e) || len(e.Fields) != 4 || e.Fields["id_type"][0] != "a" || e.Fields["id_type.x"][0] != "b" ||
		e.Fields["idTypeX"][0] != "c" || e.Fields["name"][0] != "d" {
		t.Errorf("rename = %v", err)
	}
	plain := fmt.Errorf("boom")
	if n.rename(plain) != plain || wireNames(nil).rename(plain) != plain {
		t.Errorf("rename changed an error without fields")
	}
}
