package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzXML converts random XML into the UBL JSON form and wants no panic,
// and, for every document it converts, the same judgement from the tree as
// from the tree written out as JSON and read back by the JSON path: the two
// formats go through one set of rules.
func FuzzXML(f *testing.F) {
	f.Add([]byte(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>`))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "c">]><a>&b;</a>`))
	f.Add([]byte(`<a><b x="1" xmlns:p="u" p:y="2">t<c/></b><b>3.50</b><ChargeIndicator>true</ChargeIndicator><PayableAmount>1e5</PayableAmount></a>`))
	f.Add([]byte(`<a>` + "\xff" + `</a>`))
	for _, name := range []string{"1.1-Invoice-Sample.xml", "1.0-Credit-Note-Sample.xml", "one-doc-signed.xml"} {
		if b, err := os.ReadFile(filepath.Join("../../../shared/testdata/myinvois-samples", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tree, err := convertXML(raw)
		var deep *xmlDepthError
		if errors.Is(err, errNotXML) || errors.As(err, &deep) {
			return
		}
		if err != nil {
			t.Fatalf("unexpected error kind: %v", err)
		}
		info, serrs := checkTree(tree)
		b, err := json.Marshal(tree)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		jinfo, jserrs, err := parseDocument(b)
		if err != nil {
			t.Fatalf("JSON of the tree does not parse: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(info, jinfo) || !reflect.DeepEqual(serrs, jserrs) {
			t.Fatalf("tree and its JSON judged differently:\n%+v %v\n%+v %v", info, serrs, jinfo, jserrs)
		}
	})
}
