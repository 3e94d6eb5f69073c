package dsig

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzVerify checks that Verify never panics and always reports a
// *VerifyError, and that the scanner agrees with encoding/json on where a
// valid document ends.
func FuzzVerify(f *testing.F) {
	for _, rel := range []string{sampleSigned, goldenSigned} {
		if b, err := readOptional(rel); err == nil {
			f.Add(b)
			f.Add(appendMinified(nil, b))
		}
	}
	for _, s := range []string{``, `{}`, `{"Invoice":[{}]}`, nested,
		`{"Invoice":[{"UBLExtensions":[{"UBLExtension":[{}]}],"Signature":[{}]}]}`,
		`{"Invoice":[{"ID":[{"_":"\u00e9\\"}],"UBLExtensions":[[]],"Signature":[1]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Verify(data)
		if err == nil {
			return
		}
		if _, ok := err.(*VerifyError); !ok {
			t.Fatalf("error %T: %v", err, err)
		}
		if json.Valid(data) {
			root, ok := rootValue(data)
			if !ok || len(bytes.TrimRight(data[root.end:], " \t\r\n")) != 0 {
				t.Fatalf("scanner ends root at %d of %d", root.end, len(data))
			}
		}
	})
}
