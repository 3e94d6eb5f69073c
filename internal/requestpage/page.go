package requestpage

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/refdata"
	"github.com/einvoice/einvoice/internal/web"
)

//go:embed pages/request.html
var pageFiles embed.FS

// requestTemplate is the buyer's request page, every state of it.
var requestTemplate = template.Must(template.ParseFS(pageFiles, "pages/request.html"))

// maxPageForm bounds the request page's form body (its fields together
// are well under 4 KB).
const maxPageForm = 16 << 10

// maxPageField bounds one field of the form, in characters, before the
// party rules judge it (their limits are lower).
const maxPageField = 400

// pageFields are the form's text fields, by name, with the party's path
// whose errors show beside each.
var pageFields = []struct{ name, path string }{
	{"name", "name"}, {"tin", "tin"}, {"idType", "idType"}, {"idValue", "idValue"},
	{"addressLine", "address.line1"}, {"city", "address.city"}, {"postCode", "address.postCode"},
	{"state", "address.state"}, {"country", "address.countryCode"}, {"email", "contact.email"}, {"phone", "contact.phone"},
}

// Options are the dependencies of the request page.
type Options struct {
	// Service is the application: the page's use cases.
	Service *invoicing.Service
	// Limiter counts requests per client address (none when nil).
	Limiter einvoice.RateLimiter
	Logger  *slog.Logger
	// Now is the clock of the rate limit (time.Now when nil).
	Now func() time.Time
	// Secret keys the CSRF tokens; replicas must share it (serve derives
	// it from the secret key). Random when empty.
	Secret []byte
}

// Pages is the buyer's request page (DECISIONS 17): GET and POST
// /r/{token}, and GET /r/{token}/pdf, in English and Malay, without an API
// key. Mount registers it on the root handler.
type Pages struct {
	svc     *invoicing.Service
	limiter einvoice.RateLimiter
	logger  *slog.Logger
	now     func() time.Time
	csrf    *web.CSRF
	// audit records the buyers' requests (DECISIONS 20).
	audit *web.Audit
}

// New returns the request page.
func New(o Options) *Pages {
	s := &Pages{svc: o.Service, limiter: o.Limiter, logger: o.Logger, now: o.Now, csrf: web.NewCSRF(o.Secret, "einvoice request page csrf")}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.svc != nil {
		s.audit = &web.Audit{Record: s.svc.RecordAudit}
	}
	return s
}

// Mount registers the page's routes on root.
func (s *Pages) Mount(root *web.Root) {
	root.HandlePage("GET /r/{token}", s.pageLimited(s.requestPage))
	root.HandlePage("POST /r/{token}", s.audit.Wrap(s.pageLimited(s.requestPost)))
	root.HandlePage("GET /r/{token}/pdf", s.pageLimited(s.requestPDF))
}

// pageData is what the template shows.
type pageData struct {
	Lang      string
	LangQuery bool
	T         map[string]string
	Nonce     string
	Self      string
	Kind      string // notfound, message, closed, status, form
	Heading   string
	Message   string
	Refresh   bool

	Shop, Number, Date, Total, Currency string
	Deleted                             bool
	Status, StatusText                  string
	Valid                               bool

	CSRF      string
	Form      map[string]string
	Errors    map[string]string
	FormError string
	IDTypes   []refdata.Entry
	States    []refdata.Entry
}

// newPage starts the data of a page answering r.
func (s *Pages) newPage(r *http.Request) *pageData {
	lang, explicit := pageLang(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"))
	return &pageData{Lang: lang, LangQuery: explicit, T: pageText[lang], Nonce: web.Nonce(),
		Form: map[string]string{}, Errors: map[string]string{}}
}

// pageHeaders are the security headers of every page answer (web's), with
// a strict CSP: nothing but the page's own nonce-bound style, its images
// and same-origin form posts. The URL holds the receipt's token: the
// referrer goes to our own origin only (Referrer-Policy same-origin).
func pageHeaders(h http.Header, nonce string) {
	web.SetPageHeaders(h, "default-src 'none'; style-src 'nonce-"+nonce+"'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Vary", "Accept-Language")
}

// render writes the page with status (web's plain 500 page when the
// template fails).
func (s *Pages) render(w http.ResponseWriter, r *http.Request, status int, p *pageData) {
	pageHeaders(w.Header(), p.Nonce)
	web.RenderHTML(w, r, s.logger, status, requestTemplate, "request.html", p)
}

// pageNotFound is the one answer for a token that names no receipt.
func (s *Pages) pageNotFound(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r)
	p.Kind = "notfound"
	s.render(w, r, http.StatusNotFound, p)
}

// pageMessage answers a page with one message, under status.
func (s *Pages) pageMessage(w http.ResponseWriter, r *http.Request, status int, heading, message string) {
	p := s.newPage(r)
	p.Kind, p.Heading, p.Message = "message", p.T[heading], message
	s.render(w, r, status, p)
}

// pageError answers a failure of the service: NOT_FOUND is the not-found
// page, anything else a 503 (logged) that asks to try again.
func (s *Pages) pageError(w http.ResponseWriter, r *http.Request, err error) {
	var e *einvoice.Error
	if errors.As(err, &e) && e.Code == einvoice.CodeNotFound {
		s.pageNotFound(w, r)
		return
	}
	// The service's own "try again later" (429, 503) keeps its status;
	// anything else is a failure of ours, logged, and a 503 to the buyer.
	status, _ := web.StatusOf(err)
	if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
		s.logger.ErrorContext(r.Context(), "request page", "request_id", web.RequestID(r.Context()), "error", err)
		status = http.StatusServiceUnavailable
	}
	w.Header().Set("Retry-After", "60")
	s.pageMessage(w, r, status, "unavailable", pageText[s.newPage(r).Lang]["unavailableText"])
}

// pageLimited counts the request against its client address's window in
// the service's rate limiter (the database's on PostgreSQL, so replicas
// share it): over the limit is a 429 page with Retry-After. A failing
// limiter lets the request through (logged).
func (s *Pages) pageLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.limiter != nil {
			now := s.now()
			d, err := s.limiter.Allow(r.Context(), "page:"+web.ClientAddress(r), now)
			switch {
			case err != nil:
				s.logger.WarnContext(r.Context(), "request page rate limit", "error", err)
			case !d.Allowed:
				secs := int(math.Ceil(d.Reset.Sub(now).Seconds()))
				secs = max(secs, 1)
				w.Header().Set("Retry-After", strconv.Itoa(secs))
				p := s.newPage(r)
				s.pageMessage(w, r, http.StatusTooManyRequests, "tooMany", fmt.Sprintf(p.T["tooManyText"], strconv.Itoa(secs)))
				return
			}
		}
		h(w, r)
	}
}

// selfPath is the page's own path.
func selfPath(token string) string { return "/r/" + token }

// receiptPage fills p with what the view shows.
func fillReceipt(p *pageData, v *invoicing.ReceiptRequestView) {
	rc := v.Receipt
	p.Self, p.Shop, p.Number = selfPath(rc.Token), v.Shop, rc.ReceiptNumber
	p.Date = einvoice.FormatMYT(rc.IssuedAt)
	p.Currency = rc.CurrencyCode
	if rc.TotalPayableAmount != nil {
		p.Total = rc.TotalPayableAmount.String()
	}
	switch v.State {
	case invoicing.RequestClosed:
		p.Kind, p.Deleted = "closed", v.Deleted
	case invoicing.RequestConverted:
		p.Kind = "status"
		if d := v.Invoice; d != nil {
			p.Status = string(d.Status)
			p.StatusText = p.T["st."+p.Status]
			if p.StatusText == "" {
				p.StatusText = p.Status
			}
			p.Valid = d.Status == einvoice.StatusValid
			p.Refresh = d.Status != einvoice.StatusValid && d.Status != einvoice.StatusInvalid && d.Status != einvoice.StatusCancelled
		}
	default:
		p.Kind = "form"
	}
}

// requestPage is GET /r/{token}: the receipt with the form, or the
// invoice's status (refreshed from the authority), or why the receipt can
// no longer be invoiced; the not-found page for any other token.
func (s *Pages) requestPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.svc.ReceiptRequest(r.Context(), r.PathValue("token"), true)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	p := s.newPage(r)
	fillReceipt(p, v)
	if p.Kind == "form" {
		s.fillForm(p, v.Receipt.Token)
		p.Form["country"] = "MYS"
	}
	s.render(w, r, http.StatusOK, p)
}

// fillForm sets the form's lists and CSRF token.
func (s *Pages) fillForm(p *pageData, token string) {
	p.CSRF = s.csrf.Token([]byte(token))
	p.IDTypes = refdata.IDTypes.Entries()
	p.States = refdata.States.Entries()
}

// requestPost is POST /r/{token}: the form, checked (CSRF token and
// Origin first), then the service's request; success is a 303 to the page
// (which then shows the invoice's status), a receipt already converted,
// consolidated or deleted too (the page says what it is); bad input is
// the form again (422) with the values kept and a message beside each
// field, nothing written.
func (s *Pages) requestPost(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	v, err := s.svc.ReceiptRequest(r.Context(), token, false)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	// The buyer is the actor from here; the receipt, not its token (the
	// page's secret), is the resource.
	r = r.WithContext(einvoice.WithActor(r.Context(), einvoice.Actor{Kind: einvoice.ActorRequestPage,
		Name: "buyer request page", TenantID: v.Receipt.TenantID}))
	web.AuditResource(r.Context(), "receipt", v.Receipt.ID, "")
	p := s.newPage(r)
	fillReceipt(p, v)
	redirect := selfPath(v.Receipt.Token)
	if p.LangQuery {
		redirect += "?lang=" + p.Lang
	}
	if !web.SameOrigin(r, s.publicHost()) {
		s.pageMessage(w, r, http.StatusForbidden, "title", p.T["csrf"])
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPageForm)
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	if strings.TrimSpace(strings.ToLower(ct)) != "application/x-www-form-urlencoded" {
		s.pageMessage(w, r, http.StatusUnsupportedMediaType, "title", p.T["unreadable"])
		return
	}
	if err := r.ParseForm(); err != nil {
		status := http.StatusBadRequest
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		s.pageMessage(w, r, status, "title", p.T["unreadable"])
		return
	}
	if !s.csrf.Check([]byte(token), r.PostForm.Get(web.CSRFField)) {
		s.pageMessage(w, r, http.StatusForbidden, "title", p.T["csrf"])
		return
	}
	if p.Kind != "form" {
		http.Redirect(w, r, redirect, http.StatusSeeOther)
		return
	}
	in, bad := readBuyerForm(r, p)
	if !bad {
		_, err = s.svc.RequestReceiptInvoice(r.Context(), token, in)
		if err == nil {
			http.Redirect(w, r, redirect, http.StatusSeeOther)
			return
		}
		var e *einvoice.Error
		switch {
		case errors.As(err, &e) && e.Code == einvoice.CodeReceiptNotConvertible:
			http.Redirect(w, r, redirect, http.StatusSeeOther)
			return
		case errors.As(err, &e) && (e.Code == einvoice.CodeValidationFailed || e.Code == einvoice.CodeDuplicateSerial ||
			e.Code == einvoice.CodeAuthorityUnavailable):
			placeErrors(p, e)
		default:
			s.pageError(w, r, err)
			return
		}
	}
	if p.FormError == "" {
		p.FormError = p.T["check"]
	}
	s.fillForm(p, v.Receipt.Token)
	s.render(w, r, http.StatusUnprocessableEntity, p)
}

// readBuyerForm reads the form's fields into the request and into p.Form
// (to show them again); bad is true when a field is not text (invalid
// UTF-8, control characters) or too long, its message set in p.Errors.
func readBuyerForm(r *http.Request, p *pageData) (in invoicing.BuyerRequest, bad bool) {
	get := func(name string) string {
		v := r.PostForm.Get(name)
		switch {
		case !utf8.ValidString(v):
			p.Errors[name] = p.T["badField"] + "is not valid text"
			bad = true
			return ""
		case utf8.RuneCountInString(v) > maxPageField:
			p.Errors[name] = p.T["badField"] + fmt.Sprintf("is too long (at most %d characters)", maxPageField)
			bad = true
			v = string([]rune(v)[:maxPageField])
		case strings.ContainsFunc(v, func(c rune) bool { return c < 0x20 || c == 0x7f }):
			p.Errors[name] = p.T["badField"] + "must not hold control characters"
			bad = true
		}
		p.Form[name] = v
		return v
	}
	in = invoicing.BuyerRequest{Name: get("name"), TIN: get("tin"), IDType: get("idType"), IDValue: get("idValue"),
		AddressLine: get("addressLine"), City: get("city"), PostCode: get("postCode"), State: get("state"),
		Country: get("country"), Email: get("email"), Phone: get("phone")}
	if v := r.PostForm.Get("individual"); v != "" {
		in.Individual = true
		p.Form["individual"] = "1"
	}
	return in, bad
}

// placeErrors puts the service's field errors beside the form's fields;
// a problem the buyer cannot fix (the receipt's, the shop's) is the form's
// own message, which asks them to see the shop.
func placeErrors(p *pageData, e *einvoice.Error) {
	other := false
	for path, msgs := range e.Fields {
		placed := false
		for _, f := range pageFields {
			if f.path == path && len(msgs) > 0 {
				p.Errors[f.name] = p.T["badField"] + strings.Join(msgs, "; ")
				placed = true
			}
		}
		other = other || !placed
	}
	if other || len(e.Fields) == 0 {
		p.FormError = p.T["shopProblem"] + " (" + e.Message + ")"
	}
}

// requestPDF is GET /r/{token}/pdf: the invoice's PDF once Valid, only for
// its own token; the not-found page otherwise.
func (s *Pages) requestPDF(w http.ResponseWriter, r *http.Request) {
	f, err := s.svc.ReceiptRequestPDF(r.Context(), r.PathValue("token"))
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	pageHeaders(w.Header(), "none")
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="e-invoice.pdf"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(f.Body)
}
