package httpapi

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/pdf"
	"github.com/einvoice/einvoice/internal/qr"
)

// qrOffers are what GET /documents/{id}/qr answers, JSON by default.
var qrOffers = []string{"application/json", "image/png", "image/jpeg"}

// qrResult is the JSON answer of GET /documents/{id}/qr.
type qrResult struct {
	ID           string `json:"id"`
	DocumentUUID string `json:"document_uuid"`
	URL          string `json:"url"`
	// QRCode is the PNG in plain base64 (no data: prefix).
	QRCode string `json:"qr_code"`
}

// qrSize reads ?size= (pixels, 64 to 1024, default 256).
func qrSize(r *http.Request) (int, error) {
	q := r.URL.Query()
	if !q.Has("size") {
		return qr.DefaultSize, nil
	}
	n, err := strconv.Atoi(q.Get("size"))
	if err != nil || n < qr.MinSize || n > qr.MaxSize {
		return 0, einvoice.FieldErrors{"size": {fmt.Sprintf("must be a whole number of pixels from %d to %d", qr.MinSize, qr.MaxSize)}}.Err()
	}
	return n, nil
}

// notValid is the answer for a document the authority has not validated.
func notValid(d *einvoice.Document) error {
	return einvoice.Errorf(einvoice.CodeDocumentNotValid,
		"The document is %s: its QR code exists once the tax authority has validated it (status Valid).", d.Status)
}

func (s *Server) documentQR(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	size, err := qrSize(r)
	if err != nil {
		return err
	}
	v, err := s.svc.Visual(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	if v.URL == "" {
		return notValid(v.Doc)
	}
	encode := qr.PNG
	mt := negotiate(r.Header.Get("Accept"), qrOffers)
	if mt == "image/jpeg" {
		encode = qr.JPEG
	}
	img, err := encode(v.URL, size)
	if err != nil {
		return fmt.Errorf("qr %s: %w", mt, err)
	}
	if mt == "application/json" {
		ok(w, http.StatusOK, qrResult{ID: v.Doc.ID, DocumentUUID: v.Doc.Authority.DocumentUUID, URL: v.URL,
			QRCode: base64.StdEncoding.EncodeToString(img)})
		return nil
	}
	writeBytes(w, mt, img)
	return nil
}

// pdfQRSize is the size of the QR code drawn into a PDF.
const pdfQRSize = 256

func (s *Server) documentPDF(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	v, err := s.svc.Visual(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	in := pdf.Input{Doc: v.Doc, Supplier: v.Supplier, Customer: v.Customer}
	if v.URL != "" {
		img, err := qr.PNG(v.URL, pdfQRSize)
		if err != nil {
			return fmt.Errorf("qr png: %w", err)
		}
		a := v.Doc.Authority
		in.Validation = &pdf.Validation{UUID: a.DocumentUUID, LongID: a.LongID, URL: v.URL, QRPNG: img}
		if a.ValidatedAt != nil {
			in.Validation.ValidatedAt = *a.ValidatedAt
		}
	}
	var buf bytes.Buffer
	if err := pdf.Render(&buf, in); err != nil {
		return fmt.Errorf("render pdf: %w", err)
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s"`, pdf.Filename(v.Doc.InvoiceSerialNumber)))
	writeBytes(w, "application/pdf", buf.Bytes())
	return nil
}

// writeBytes writes a non-JSON answer.
func writeBytes(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
