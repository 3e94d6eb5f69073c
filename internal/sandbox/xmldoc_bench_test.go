package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParse compares reading a document as JSON and as XML (its
// conversion included): the official multi-line sample in both formats,
// and a 300 KB XML document (the largest a submission may carry).
func BenchmarkParse(b *testing.B) {
	dir := "../../../shared/testdata/myinvois-samples"
	jsonDoc, err1 := os.ReadFile(filepath.Join(dir, "1.1-Invoice-MultiLineItem-Sample.json"))
	xmlDoc, err2 := os.ReadFile(filepath.Join(dir, "1.1-Invoice-MultiLineItem-Sample.xml"))
	if err1 != nil || err2 != nil {
		b.Skip("official samples not found")
	}
	i := bytes.Index(xmlDoc, []byte("<cac:InvoiceLine>"))
	j := bytes.LastIndex(xmlDoc, []byte("</cac:InvoiceLine>")) + len("</cac:InvoiceLine>")
	lines := xmlDoc[i:j]
	var big bytes.Buffer
	big.Write(xmlDoc[:j])
	for big.Len()+len(lines) < maxDocumentBytes-len(xmlDoc[j:]) {
		big.Write(lines)
	}
	big.Write(xmlDoc[j:])
	for _, tc := range []struct {
		name string
		doc  []byte
		xml  bool
	}{{"JSON sample", jsonDoc, false}, {"XML sample", xmlDoc, true}, {"XML 300 KB", big.Bytes(), true}} {
		b.Run(strings.ReplaceAll(tc.name, " ", "_"), func(b *testing.B) {
			parse := parseDocument
			if tc.xml {
				parse = parseXMLDocument
			}
			b.SetBytes(int64(len(tc.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, serrs, err := parse(tc.doc); err != nil || len(serrs) > 0 {
					b.Fatal(err, serrs)
				}
			}
		})
	}
}
