package httpapi

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
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
		return invoicing.QRDefaultSize, nil
	}
	n, err := strconv.Atoi(q.Get("size"))
	if err != nil || n < invoicing.QRMinSize || n > invoicing.QRMaxSize {
		return 0, einvoice.FieldErrors{"size": {fmt.Sprintf("must be a whole number of pixels from %d to %d", invoicing.QRMinSize, invoicing.QRMaxSize)}}.Err()
	}
	return n, nil
}

// qrRequest reads what a QR endpoint is asked for: the size (?size=), the
// media type answered (by Accept: JSON, PNG or JPEG) and the image format.
func qrRequest(r *http.Request) (size int, mt string, format invoicing.QRFormat, err error) {
	if size, err = qrSize(r); err != nil {
		return 0, "", format, err
	}
	mt, format = negotiate(r.Header.Get("Accept"), qrOffers), invoicing.QRPNG
	if mt == "image/jpeg" {
		format = invoicing.QRJPEG
	}
	return size, mt, format, nil
}

func (s *Server) documentQR(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	size, mt, format, err := qrRequest(r)
	if err != nil {
		return err
	}
	code, err := s.svc.QR(r.Context(), k.TenantID, r.PathValue("id"), size, format)
	if err != nil {
		return err
	}
	if mt == "application/json" {
		ok(w, http.StatusOK, qrResult{ID: code.Doc.ID, DocumentUUID: code.Doc.Authority.DocumentUUID, URL: code.URL,
			QRCode: base64.StdEncoding.EncodeToString(code.Image)})
		return nil
	}
	writeBytes(w, mt, code.Image)
	return nil
}

func (s *Server) documentPDF(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	file, err := s.svc.PDF(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s"`, file.Name))
	writeBytes(w, "application/pdf", file.Body)
	return nil
}

// writeBytes writes a non-JSON answer.
func writeBytes(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
