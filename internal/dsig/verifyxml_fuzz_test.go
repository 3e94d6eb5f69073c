package dsig

import "testing"

// FuzzVerifyXML checks that VerifyXML never panics and reports nil or a
// *VerifyError.
func FuzzVerifyXML(f *testing.F) {
	for _, rel := range []string{goldenSignedXML, sampleSignedXML} {
		if b, err := readOptional(rel); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{``, `<a/>`, `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`,
		`<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "c">]><a>&b;</a>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := VerifyXML(data); err != nil {
			if _, ok := err.(*VerifyError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
		}
	})
}
