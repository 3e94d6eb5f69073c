package dashboard

import (
	"bytes"
	"encoding/pem"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// maxCertificateFile is the largest certificate or key file accepted (the
// whole form is limited to 1 MiB by post).
const maxCertificateFile = 64 << 10

// saveAuthority saves the tax-authority settings through PUT /profile's
// use case: environment, mode, client id, the client secret (blank keeps
// the stored one; never shown back) and, when a file is chosen, the
// signing certificate: PEM (certificate and key, in one file or two) or
// PKCS#12 with its password. A refusal is shown beside its field.
func (d *Dashboard) saveAuthority(w http.ResponseWriter, r *http.Request, u *user) {
	t, err := d.svc.GetTenant(r.Context(), u.tenant())
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	v := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	au := &einvoice.Authority{Environment: v("authority.environment"), Mode: v("authority.mode"), OnBehalfOf: v("authority.onBehalfOf"),
		IntermediaryTIN: v("authority.intermediaryTin"), ClientID: v("authority.clientId"), ClientSecret: r.PostFormValue("authority.clientSecret")}
	fe := einvoice.FieldErrors{}
	readCertificate(r, au, fe)
	if len(fe) == 0 {
		_, err = d.svc.UpdateProfile(r.Context(), u.tenant(), t.Profile, au)
		if err != nil && !isUserError(err) {
			d.renderError(w, r, u, err)
			return
		}
	} else {
		err = fe.Err()
	}
	if err != nil {
		f := formOf(r, err)
		delete(f.Values, "authority.clientSecret")
		delete(f.Values, "pkcs12Password")
		for k, msgs := range f.Errors {
			if strings.HasPrefix(k, "authority.certificatePem") || strings.HasPrefix(k, "authority.privateKeyPem") || strings.HasPrefix(k, "authority.pkcs12") {
				f.Errors["certificate"] = append(f.Errors["certificate"], msgs...)
				delete(f.Errors, k)
			}
		}
		if len(f.Errors) > 0 {
			f.Message = "Not saved: see the errors beside the fields."
		}
		strayErrors(f, authorityFields)
		d.renderProfile(w, r, u, http.StatusUnprocessableEntity, nil, f, nil)
		return
	}
	redirectFlash(w, r, "/app/profile", "ok", "Tax-authority settings saved.")
}

// readCertificate puts the uploaded certificate (and key) files into au:
// PEM blocks as certificate and key, anything else as PKCS#12 with the
// password typed. Problems are field errors of "certificate".
func readCertificate(r *http.Request, au *einvoice.Authority, fe einvoice.FieldErrors) {
	cert, err := formFile(r, "certificate")
	if err != nil {
		fe.Add("certificate", "%s", err.Error())
		return
	}
	key, err := formFile(r, "privateKey")
	if err != nil {
		fe.Add("certificate", "%s", err.Error())
		return
	}
	if cert == nil {
		if key != nil || r.PostFormValue("pkcs12Password") != "" {
			fe.Add("certificate", "Choose the certificate file too.")
		}
		return
	}
	if !bytes.HasPrefix(bytes.TrimSpace(cert), []byte("-----BEGIN")) {
		au.PKCS12, au.PKCS12Password = cert, r.PostFormValue("pkcs12Password")
		if au.PKCS12Password == "" {
			fe.Add("certificate", "A PKCS#12 file needs its password.")
		}
		return
	}
	var certs, keys []byte
	for _, f := range [][]byte{cert, key} {
		rest := f
		for {
			var b *pem.Block
			if b, rest = pem.Decode(rest); b == nil {
				break
			}
			if b.Type == "CERTIFICATE" {
				certs = append(certs, pem.EncodeToMemory(b)...)
			} else if strings.HasSuffix(b.Type, "PRIVATE KEY") {
				keys = append(keys, pem.EncodeToMemory(b)...)
			}
		}
	}
	switch {
	case len(certs) == 0:
		fe.Add("certificate", "The file holds no PEM certificate (-----BEGIN CERTIFICATE-----).")
	case len(keys) == 0:
		fe.Add("certificate", "The certificate needs its private key: put it in the same PEM file, or choose the key file.")
	default:
		au.CertificatePEM, au.PrivateKeyPEM = string(certs), string(keys)
	}
}

// fileProblem is what is wrong with an uploaded file, in words shown
// beside its input.
type fileProblem string

func (p fileProblem) Error() string { return string(p) }

// formFile reads an uploaded file, nil when none was chosen.
func formFile(r *http.Request, name string) ([]byte, error) {
	f, h, err := r.FormFile(name)
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return nil, nil
	}
	if err != nil {
		return nil, fileProblem("The file could not be read: upload it again.")
	}
	defer func(f multipart.File) { _ = f.Close() }(f)
	if h.Size == 0 {
		return nil, nil
	}
	if h.Size > maxCertificateFile {
		return nil, fileProblem("The file is too large: a certificate file is at most 64 KiB.")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCertificateFile+1))
	if err != nil {
		return nil, fileProblem("The file could not be read: upload it again.")
	}
	return b, nil
}
