package e2e

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/jpeg" // decodes the JPEG answers
	_ "image/png"  // decodes the PNG answers
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testdb"
)

// decodeQR reads the QR code of an image with a pure-Go decoder.
func decodeQR(t *testing.T, raw []byte) (string, image.Point) {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decode image: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText(), img.Bounds().Size()
}

// pdfText extracts the text of a PDF with pdftotext (Debian poppler-utils).
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed: the PDF's text cannot be checked")
	}
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// TestQRCode: the QR code of a Valid document encodes its validation link,
// as JSON with a base64 PNG, as PNG and as JPEG, in the size asked.
func TestQRCode(t *testing.T) {
	ctx := t.Context()
	svc, a := startLifecycleAPI(t, testdb.SQLite(t))
	c := svc.client(t, svc.DemoKey) // for the Accept negotiation, on the wire
	bp, err := a.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
	buyer := must(t, bp, err).ID
	id := readyInvoiceDoc(t, a, "INV-QR-1", buyer)
	_, err = a.Documents.QR(ctx, id, 0)
	wantErr(t, err, 409, client.CodeDocumentNotValid)
	sub, err := a.Documents.Submit(ctx, id)
	want200(t, must(t, sub, err))
	st := waitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
	link := st.ValidationURL

	// JSON by default (no Accept), and for */*.
	for _, accept := range []string{"", "*/*"} {
		d := c.do("GET", "/api/v1/documents/"+id+"/qr", nil, "Accept", accept).want(t, 200, "").data()
		if d["url"] != link || d["document_uuid"] != st.DocumentUUID || d["id"] != id {
			t.Errorf("Accept %q: %v", accept, d)
		}
		raw, err := base64.StdEncoding.DecodeString(str(d["qr_code"]))
		if err != nil || strings.HasPrefix(str(d["qr_code"]), "data:") {
			t.Fatalf("qr_code is not plain base64: %v", err)
		}
		if text, size := decodeQR(t, raw); text != link || size != (image.Point{256, 256}) {
			t.Errorf("JSON qr_code: %q %v, want %q at 256x256", text, size, link)
		}
	}
	// And for application/json: the client's QR (which reads qr_code as
	// plain base64).
	qr, err := a.Documents.QR(ctx, id, 0)
	if must(t, qr, err).URL != link || qr.DocumentUUID != st.DocumentUUID || qr.ID != id {
		t.Errorf("Accept application/json: %+v", qr)
	}
	if text, size := decodeQR(t, qr.PNG); text != link || size != (image.Point{256, 256}) {
		t.Errorf("JSON qr_code: %q %v, want %q at 256x256", text, size, link)
	}
	// The images: the Content-Type answered is part of the check, which
	// the client's QRImage does not show.
	for _, c2 := range []struct {
		accept, size string
		px           int
	}{{"image/png", "", 256}, {"image/png", "64", 64}, {"image/jpeg", "1024", 1024}, {"image/*", "300", 300}} {
		path := "/api/v1/documents/" + id + "/qr"
		if c2.size != "" {
			path += "?size=" + c2.size
		}
		r := c.do("GET", path, nil, "Accept", c2.accept).want(t, 200, "")
		want := c2.accept
		if want == "image/*" {
			want = "image/png"
		}
		if ct := r.Header.Get("Content-Type"); ct != want {
			t.Errorf("Accept %s: Content-Type %s", c2.accept, ct)
		}
		if text, size := decodeQR(t, r.Raw); text != link || size != (image.Point{c2.px, c2.px}) {
			t.Errorf("Accept %s size %s: %q %v", c2.accept, c2.size, text, size)
		}
	}
	c.do("GET", "/api/v1/documents/"+id+"/qr", nil, "Accept", "image/webp").want(t, 406, "NOT_ACCEPTABLE")
	for _, bad := range []int{63, 1025} {
		_, err := a.Documents.QR(ctx, id, bad)
		if e := wantErr(t, err, 422, client.CodeValidationFailed); e.Fields["size"] == nil {
			t.Errorf("size=%d: errors %v", bad, e.Fields)
		}
	}
	for _, bad := range []string{"abc", ""} { // sizes the client cannot send
		r := c.do("GET", "/api/v1/documents/"+id+"/qr?size="+bad, nil).want(t, 422, "VALIDATION_FAILED")
		if r.fieldErrors()["size"] == nil {
			t.Errorf("size=%s: errors %v", bad, r.fieldErrors())
		}
	}
	_, err = a.Documents.QR(ctx, "01900000-0000-7000-8000-000000000009", 0)
	wantErr(t, err, 404, client.CodeDocumentNotFound)
}

// TestPDF: the visual e-invoice carries the document's numbers and parties;
// "NOT YET VALIDATED" until the authority validates it, then its uuid and
// link; a submitted document's PDF comes from its frozen copy.
func TestPDF(t *testing.T) {
	ctx := t.Context()
	svc, a := startLifecycleAPI(t, testdb.SQLite(t))
	c := svc.client(t, svc.DemoKey) // for the headers of the answer
	b := sampleBuyer()
	b["name"] = "Syarikat Jaya Sdn. Bhd. 腾讯科技有限公司"
	bp, err := a.Buyers.Create(ctx, partyOf(t, b))
	buyer := must(t, bp, err).ID
	id := readyInvoiceDoc(t, a, "INV-PDF/1", buyer)

	// The headers are part of the check: the client's PDF does not show them.
	r := c.do("GET", "/api/v1/documents/"+id+"/pdf", nil).want(t, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "application/pdf" || !bytes.HasPrefix(r.Raw, []byte("%PDF-")) {
		t.Fatalf("Content-Type %s, body %.20q", ct, r.Raw)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `inline; filename="INV-PDF_1.pdf"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	text := pdfText(t, r.Raw)
	for _, want := range []string{"INV-PDF/1", "NOT YET VALIDATED", "Syarikat Jaya Sdn. Bhd.", "腾讯科技有限公司", "C20880050010",
		"Laptop Peripherals", "15.15"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft's PDF lacks %q:\n%s", want, text)
		}
	}
	c.do("GET", "/api/v1/documents/"+id+"/pdf", nil, "Accept", "application/json").want(t, 406, "NOT_ACCEPTABLE")

	sub, err := a.Documents.Submit(ctx, id)
	want200(t, must(t, sub, err))
	st := waitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
	// Renaming the buyer afterwards changes nothing in the submitted document's PDF.
	b["name"] = "Renamed Buyer Bhd."
	p, err := a.Buyers.Update(ctx, buyer, partyOf(t, b))
	must(t, p, err)
	pdf, err := a.Documents.PDF(ctx, id)
	text = pdfText(t, must(t, pdf, err).Data)
	for _, want := range []string{st.DocumentUUID, "Syarikat Jaya Sdn. Bhd."} {
		if !strings.Contains(text, want) {
			t.Errorf("the Valid document's PDF lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"NOT YET VALIDATED", "Renamed Buyer"} {
		if strings.Contains(text, not) {
			t.Errorf("the Valid document's PDF shows %q", not)
		}
	}
}
