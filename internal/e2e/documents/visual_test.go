package documents

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/jpeg" // decodes the JPEG answers
	_ "image/png"  // decodes the PNG answers
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestQRCode: the QR code of a Valid document encodes its validation link,
// as JSON with a base64 PNG, as PNG and as JPEG, in the size asked.
func TestQRCode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	svc, a := e2etest.StartLifecycleAPI(t, migrated.SQLite(t))
	c := svc.Client(t, svc.DemoKey) // for the Accept negotiation, on the wire
	bp, err := a.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
	buyer := e2etest.Must(t, bp, err).ID
	id := e2etest.ReadyInvoiceDoc(t, a, "INV-QR-1", buyer)
	_, err = a.Documents.QR(ctx, id, 0)
	e2etest.WantErr(t, err, 409, client.CodeDocumentNotValid)
	sub, err := a.Documents.Submit(ctx, id)
	e2etest.Want200(t, e2etest.Must(t, sub, err))
	st := e2etest.WaitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
	link := st.ValidationURL

	// JSON by default (no Accept), and for */*.
	for _, accept := range []string{"", "*/*"} {
		d := c.Do("GET", "/api/v1/documents/"+id+"/qr", nil, "Accept", accept).Want(t, 200, "").Data()
		if d["url"] != link || d["document_uuid"] != st.DocumentUUID || d["id"] != id {
			t.Errorf("Accept %q: %v", accept, d)
		}
		raw, err := base64.StdEncoding.DecodeString(e2etest.Str(d["qr_code"]))
		if err != nil || strings.HasPrefix(e2etest.Str(d["qr_code"]), "data:") {
			t.Fatalf("qr_code is not plain base64: %v", err)
		}
		if text, size := e2etest.DecodeQR(t, raw); text != link || size != (image.Point{256, 256}) {
			t.Errorf("JSON qr_code: %q %v, want %q at 256x256", text, size, link)
		}
	}
	// And for application/json: the client's QR (which reads qr_code as
	// plain base64).
	qr, err := a.Documents.QR(ctx, id, 0)
	if e2etest.Must(t, qr, err).URL != link || qr.DocumentUUID != st.DocumentUUID || qr.ID != id {
		t.Errorf("Accept application/json: %+v", qr)
	}
	if text, size := e2etest.DecodeQR(t, qr.PNG); text != link || size != (image.Point{256, 256}) {
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
		r := c.Do("GET", path, nil, "Accept", c2.accept).Want(t, 200, "")
		want := c2.accept
		if want == "image/*" {
			want = "image/png"
		}
		if ct := r.Header.Get("Content-Type"); ct != want {
			t.Errorf("Accept %s: Content-Type %s", c2.accept, ct)
		}
		if text, size := e2etest.DecodeQR(t, r.Raw); text != link || size != (image.Point{c2.px, c2.px}) {
			t.Errorf("Accept %s size %s: %q %v", c2.accept, c2.size, text, size)
		}
	}
	c.Do("GET", "/api/v1/documents/"+id+"/qr", nil, "Accept", "image/webp").Want(t, 406, "NOT_ACCEPTABLE")
	for _, bad := range []int{63, 1025} {
		_, err := a.Documents.QR(ctx, id, bad)
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Fields["size"] == nil {
			t.Errorf("size=%d: errors %v", bad, e.Fields)
		}
	}
	for _, bad := range []string{"abc", ""} { // sizes the client cannot send
		r := c.Do("GET", "/api/v1/documents/"+id+"/qr?size="+bad, nil).Want(t, 422, "VALIDATION_FAILED")
		if r.FieldErrors()["size"] == nil {
			t.Errorf("size=%s: errors %v", bad, r.FieldErrors())
		}
	}
	_, err = a.Documents.QR(ctx, "01900000-0000-7000-8000-000000000009", 0)
	e2etest.WantErr(t, err, 404, client.CodeDocumentNotFound)
}

// TestPDF: the visual e-invoice carries the document's numbers and parties;
// "NOT YET VALIDATED" until the authority validates it, then its uuid and
// link; a submitted document's PDF comes from its frozen copy.
func TestPDF(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	svc, a := e2etest.StartLifecycleAPI(t, migrated.SQLite(t))
	c := svc.Client(t, svc.DemoKey) // for the headers of the answer
	b := e2etest.SampleBuyer()
	b["name"] = "Syarikat Jaya Sdn. Bhd. 腾讯科技有限公司"
	bp, err := a.Buyers.Create(ctx, e2etest.PartyOf(t, b))
	buyer := e2etest.Must(t, bp, err).ID
	id := e2etest.ReadyInvoiceDoc(t, a, "INV-PDF/1", buyer)

	// The headers are part of the check: the client's PDF does not show them.
	r := c.Do("GET", "/api/v1/documents/"+id+"/pdf", nil).Want(t, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "application/pdf" || !bytes.HasPrefix(r.Raw, []byte("%PDF-")) {
		t.Fatalf("Content-Type %s, body %.20q", ct, r.Raw)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `inline; filename="INV-PDF_1.pdf"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	text := e2etest.PDFText(t, r.Raw)
	for _, want := range []string{"INV-PDF/1", "NOT YET VALIDATED", "Syarikat Jaya Sdn. Bhd.", "腾讯科技有限公司", "C20880050010",
		"Laptop Peripherals", "15.15"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft's PDF lacks %q:\n%s", want, text)
		}
	}
	c.Do("GET", "/api/v1/documents/"+id+"/pdf", nil, "Accept", "application/json").Want(t, 406, "NOT_ACCEPTABLE")

	sub, err := a.Documents.Submit(ctx, id)
	e2etest.Want200(t, e2etest.Must(t, sub, err))
	st := e2etest.WaitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
	// Renaming the buyer afterwards changes nothing in the submitted document's PDF.
	b["name"] = "Renamed Buyer Bhd."
	p, err := a.Buyers.Update(ctx, buyer, e2etest.PartyOf(t, b))
	e2etest.Must(t, p, err)
	pdf, err := a.Documents.PDF(ctx, id)
	text = e2etest.PDFText(t, e2etest.Must(t, pdf, err).Data)
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
