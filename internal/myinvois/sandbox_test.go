package myinvois_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// samplePath is the official sample invoice, read in place.
const samplePath = "../../../shared/testdata/myinvois-samples/1.0-Invoice-Sample.json"

const (
	supplierTIN = "C1234567890"
	buyerTIN    = "IG123456789"
)

// sandboxEnv is a sandbox served over HTTP on a fresh, migrated database.
type sandboxEnv struct {
	sb   *sandbox.Server
	cred einvoice.Credentials
}

func startSandbox(t *testing.T, dsn string, o sandbox.Options) sandboxEnv {
	t.Helper()
	st := openStore(t, dsn)
	o.DB, o.Postgres = st.DB(), st.Engine() == sqlstore.Postgres
	o.Logger = quietLogger(t)
	sb := sandbox.New(o)
	// The client logs in bound to the supplier's TIN.
	// The clients log in bound to the supplier's TIN; erp-client may also
	// act for the TINs the tests name in onbehalfof.
	represents := []string{"C2222222220"}
	for i := range 20 {
		represents = append(represents, "C"+strconv.Itoa(1000000+i)+"0")
	}
	for _, c := range []sandbox.Client{
		{ID: "erp-client", Secret: "erp-secret-1", Represents: represents},
		{ID: "erp-client-dense", Secret: "dense-secret"},
		{ID: "erp-control", Secret: "erp-control-secret"},
	} {
		c.TIN, c.IDType, c.IDValue = supplierTIN, "BRN", "201901234567"
		if err := sb.AddClient(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(sb)
	t.Cleanup(hs.Close)
	return sandboxEnv{sb: sb, cred: einvoice.Credentials{BaseURL: hs.URL, ClientID: "erp-client", ClientSecret: "erp-secret-1"}}
}

// openStore opens and migrates the database at dsn, closed after the test.
func openStore(t *testing.T, dsn string) *sqlstore.Store {
	t.Helper()
	box, err := secretbox.New(bytes.Repeat([]byte{9}, secretbox.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx, nil); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return st
}

func quietLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimSpace(p)))
	return len(p), nil
}

// sample returns the official sample invoice with a new code number, issued
// now, between well-formed TINs.
func sample(t *testing.T, buyer string) einvoice.OutgoingDocument {
	t.Helper()
	return sampleDoc(t, buyer, "IT-"+rand.Text()[:10], time.Now().UTC().Add(-5*time.Second))
}

// sampleDoc returns the official sample invoice with the given code number
// and issue time (to the second), between well-formed TINs.
func sampleDoc(t *testing.T, buyer, code string, issued time.Time) einvoice.OutgoingDocument {
	t.Helper()
	raw, err := os.ReadFile(samplePath)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent", samplePath)
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	inv := first(t, doc["Invoice"])
	issued = issued.UTC()
	setLeaf(t, inv, "ID", code)
	setLeaf(t, inv, "IssueDate", issued.Format("2006-01-02"))
	setLeaf(t, inv, "IssueTime", issued.Format("15:04:05Z"))
	setTIN(t, inv, "AccountingSupplierParty", supplierTIN)
	setTIN(t, inv, "AccountingCustomerParty", buyer)
	// The shipping recipient's TIN is a placeholder too, which the sandbox
	// judges as the authority does: the buyer receives the goods.
	if _, ok := inv["Delivery"]; ok {
		setTIN(t, first(t, inv["Delivery"]), "DeliveryParty", buyer)
	}
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return einvoice.OutgoingDocument{CodeNumber: code, Body: body}
}

// first is the first object of a UBL JSON array.
func first(t *testing.T, v any) map[string]any {
	t.Helper()
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		t.Fatalf("not a UBL array: %v", v)
	}
	obj, ok := arr[0].(map[string]any)
	if !ok {
		t.Fatalf("not a UBL object: %v", arr[0])
	}
	return obj
}

func setLeaf(t *testing.T, parent map[string]any, name, value string) {
	t.Helper()
	first(t, parent[name])["_"] = value
}

// setTIN sets the TIN of a party (AccountingSupplierParty,
// AccountingCustomerParty, or a Delivery's DeliveryParty).
func setTIN(t *testing.T, inv map[string]any, party, tin string) {
	t.Helper()
	p := first(t, inv[party])
	if party != "DeliveryParty" {
		p = first(t, p["Party"])
	}
	ids, _ := p["PartyIdentification"].([]any)
	for _, id := range ids {
		leaf := first(t, id.(map[string]any)["ID"])
		if leaf["schemeID"] == "TIN" {
			leaf["_"] = tin
			return
		}
	}
	t.Fatalf("%s has no TIN", party)
}

func engines(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, migrated.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, migrated.Postgres(t, os.Getenv)) })
}

// TestAgainstSandbox runs the client's whole protocol against the sandbox
// over HTTP.
func TestAgainstSandbox(t *testing.T) {
	engines(t, func(t *testing.T, dsn string) {
		env := startSandbox(t, dsn, sandbox.Options{Delay: 300 * time.Millisecond})
		c := myinvois.New(myinvois.Options{Budgets: true, Logger: quietLogger(t)})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()

		doc := sample(t, buyerTIN)
		res, err := c.Submit(ctx, env.cred, []einvoice.OutgoingDocument{doc})
		if err != nil {
			t.Fatalf("Submit: %v", err)
		}
		if len(res.Accepted) != 1 || len(res.Rejected) != 0 || res.SubmissionUID == "" {
			t.Fatalf("Submit: %+v", res)
		}
		uuid := res.Accepted[0].UUID
		if res.Accepted[0].CodeNumber != doc.CodeNumber || len(uuid) != 26 {
			t.Errorf("accepted %+v", res.Accepted[0])
		}

		// The same payload again within 10 minutes: a duplicate.
		_, err = c.Submit(ctx, env.cred, []einvoice.OutgoingDocument{doc})
		if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 422 || ce.Body.Code != "DuplicateSubmission" || ce.RetryAfter <= 0 {
			t.Errorf("resubmit: %v, want 422 DuplicateSubmission with Retry-After", err)
		}

		// Get submission until the verdict.
		var got einvoice.DocumentState
		for {
			s, err := c.GetSubmission(ctx, env.cred, res.SubmissionUID)
			if err != nil {
				t.Fatalf("GetSubmission: %v", err)
			}
			if len(s.Documents) != 1 || s.SubmissionUID != res.SubmissionUID {
				t.Fatalf("GetSubmission: %+v", s)
			}
			if got = s.Documents[0]; got.Status != "Submitted" {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got.Status != "Valid" || got.UUID != uuid || got.CodeNumber != doc.CodeNumber || got.LongID == "" ||
			got.ValidatedAt == nil || got.SubmittedAt.Before(start.Add(-time.Second)) {
			t.Fatalf("verdict: %+v", got)
		}

		d, err := c.GetDocumentDetails(ctx, env.cred, uuid)
		if err != nil || d.Status != "Valid" || len(d.Errors) != 0 || d.LongID != got.LongID {
			t.Errorf("GetDocumentDetails: %+v, %v", d, err)
		}

		found, err := c.FindDocuments(ctx, env.cred, []einvoice.SoughtDocument{{CodeNumber: doc.CodeNumber, Since: start},
			{CodeNumber: doc.CodeNumber + "X", Since: start}})
		if err != nil || len(found.Matches[0]) != 1 || found.Matches[0][0].UUID != uuid || found.Matches[0][0].Status != "Valid" ||
			found.Absent[0] || len(found.Matches[1]) != 0 || !found.Absent[1] {
			t.Errorf("FindDocuments: %+v, %v; want the document, and another number absent", found, err)
		}

		if err := c.CancelDocument(ctx, env.cred, uuid, "Wrong buyer"); err != nil {
			t.Fatalf("CancelDocument: %v", err)
		}
		d, err = c.GetDocumentDetails(ctx, env.cred, uuid)
		if err != nil || d.Status != "Cancelled" || d.CancelledAt == nil {
			t.Errorf("after cancel: %+v, %v", d, err)
		}
		err = c.CancelDocument(ctx, env.cred, uuid, "Again")
		if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 400 || ce.Body.Code != "IncorrectState" || ce.Temporary() {
			t.Errorf("cancel twice: %v, want 400 IncorrectState", err)
		}

		for tin, want := range map[string]bool{supplierTIN: true, "C99999999990": false, "IG999999999": false} {
			ok, err := c.ValidateTIN(ctx, env.cred, tin, "BRN", "201901234567")
			if err != nil || ok != want {
				t.Errorf("ValidateTIN %s: %v, %v; want %v", tin, ok, err, want)
			}
		}
		_, err = c.ValidateTIN(ctx, env.cred, "not-a-tin", "BRN", "1")
		if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 400 || ce.Body.Code != "BadArgument" {
			t.Errorf("ValidateTIN of a malformed TIN: %v, want 400 BadArgument", err)
		}
	})
}

// TestSandboxInvalidDocument reads an Invalid verdict's errors (the
// validation results' error shape) over HTTP.
func TestSandboxInvalidDocument(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	c := myinvois.New(myinvois.Options{Logger: quietLogger(t)})
	ctx := context.Background()
	doc := sample(t, "IG999999999") // the reserved not-found buyer
	res, err := c.Submit(ctx, env.cred, []einvoice.OutgoingDocument{doc})
	if err != nil || len(res.Accepted) != 1 {
		t.Fatalf("Submit: %+v, %v", res, err)
	}
	d, err := c.GetDocumentDetails(ctx, env.cred, res.Accepted[0].UUID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != "Invalid" || len(d.Errors) == 0 {
		t.Fatalf("details: %+v", d)
	}
	var codes []string
	for _, e := range d.Errors {
		for _, inner := range e.Details {
			codes = append(codes, inner.Code)
		}
	}
	if len(codes) == 0 || codes[0] != "ERR406" || d.Errors[0].Code == "" || d.Errors[0].Target == "" {
		t.Errorf("errors: %+v", d.Errors)
	}
}

// TestSandboxRejectsAtSubmission: a document refused at submission comes
// back in Rejected, with the error's details; a document of another issuer
// refuses the whole submission (403 IncorrectSubmitter).
func TestSandboxRejectsAtSubmission(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	c := myinvois.New(myinvois.Options{Logger: quietLogger(t)})
	ctx := context.Background()
	cred := env.cred
	bad := sample(t, buyerTIN)
	bad.CodeNumber = "NOT-ITS-ID"
	res, err := c.Submit(ctx, cred, []einvoice.OutgoingDocument{bad})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) != 1 || res.Rejected[0].CodeNumber != bad.CodeNumber || len(res.Rejected[0].Error.Details) == 0 ||
		res.Rejected[0].Error.Details[0].Code != "CodeNumberMismatch" {
		t.Errorf("Submit with another code number: %+v", res)
	}
	cred.OnBehalfOf = "C2222222220" // an intermediary for another taxpayer
	_, err = c.Submit(ctx, cred, []einvoice.OutgoingDocument{sample(t, buyerTIN)})
	var ce *einvoice.CallError
	if !errors.As(err, &ce) || ce.Status != 403 || ce.Body.Code != "IncorrectSubmitter" {
		t.Errorf("Submit on behalf of another TIN: %v", err)
	}
	cred.OnBehalfOf = supplierTIN
	res, err = c.Submit(ctx, cred, []einvoice.OutgoingDocument{sample(t, buyerTIN)})
	if err != nil || len(res.Accepted) != 1 {
		t.Errorf("Submit on behalf of the supplier: %+v, %v", res, err)
	}
}

// TestSandboxFaults: a throttle gives a 429 with Retry-After that the
// budgets then honour; a connection lost after the submission was taken is
// an unknown outcome that FindDocuments settles.
func TestSandboxFaults(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	c := myinvois.New(myinvois.Options{Budgets: true, Logger: quietLogger(t)})
	ctx := context.Background()
	start := time.Now()

	doc := sample(t, buyerTIN)
	env.sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultDrop, Count: 1})
	_, err := c.Submit(ctx, env.cred, []einvoice.OutgoingDocument{doc})
	ce, ok := einvoice.AsCallError(err)
	if !ok || ce.Status != 0 || !ce.Unanswered() {
		t.Fatalf("dropped submit: %v, want Status 0", err)
	}
	res, err := c.FindDocuments(ctx, env.cred, []einvoice.SoughtDocument{{CodeNumber: doc.CodeNumber, Since: start}})
	if err != nil || len(res.Matches[0]) != 1 || res.Matches[0][0].CodeNumber != doc.CodeNumber {
		t.Fatalf("FindDocuments after the drop: %+v, %v", res, err)
	}
	found := res.Matches[0]

	env.sb.AddFault(sandbox.Fault{Endpoint: "details", Kind: sandbox.FaultThrottle, Count: 1, RetryAfter: 2})
	_, err = c.GetDocumentDetails(ctx, env.cred, found[0].UUID)
	ce, ok = einvoice.AsCallError(err)
	if !ok || ce.Status != 429 || ce.RetryAfter != 2*time.Second || !ce.Temporary() {
		t.Fatalf("throttled: %v, want 429 with Retry-After 2s", err)
	}
	throttled := time.Now()
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if _, err := c.GetDocumentDetails(short, env.cred, found[0].UUID); !errors.Is(err, myinvois.ErrThrottled) {
		t.Errorf("within Retry-After: %v, want ErrThrottled without sending", err)
	}
	d, err := c.GetDocumentDetails(ctx, env.cred, found[0].UUID)
	if err != nil || d.UUID != found[0].UUID {
		t.Fatalf("after Retry-After: %+v, %v", d, err)
	}
	if waited := time.Since(throttled); waited < 1900*time.Millisecond {
		t.Errorf("sent again %v after a Retry-After of 2s", waited)
	}

	env.sb.AddFault(sandbox.Fault{Endpoint: "submission", Kind: sandbox.FaultFail, Count: 1})
	_, err = c.GetSubmission(ctx, env.cred, "NOSUCHSUBMISSION0000000000")
	if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 500 || !ce.Temporary() {
		t.Errorf("failed: %v, want a 500", err)
	}

	st, err := env.sb.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 {
		t.Errorf("the sandbox holds %d documents, want 1", st.Documents)
	}
}

// TestSandboxRateLimits: the sandbox's login limit (12 a minute per client)
// answers 429 with Retry-After; with budgets the 13th login is not sent.
func TestSandboxRateLimits(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{RateLimits: true})
	ctx := context.Background()
	login := func(c *myinvois.Client, i int) error {
		cred := env.cred
		cred.OnBehalfOf = "C" + strconv.Itoa(1000000+i) + "0" // another token each time
		_, err := c.ValidateTIN(ctx, cred, supplierTIN, "BRN", "201901234567-"+strconv.Itoa(i))
		return err
	}

	free := myinvois.New(myinvois.Options{Logger: quietLogger(t)})
	for i := range 12 {
		if err := login(free, i); err != nil {
			t.Fatalf("login %d: %v", i+1, err)
		}
	}
	err := login(free, 12)
	ce, ok := einvoice.AsCallError(err)
	if !ok || ce.Status != 429 || ce.RetryAfter <= 0 || ce.RetryAfter > time.Minute {
		t.Fatalf("13th login: %v, want 429 with Retry-After", err)
	}

	env2 := startSandbox(t, migrated.SQLite(t), sandbox.Options{RateLimits: true})
	env = env2
	budgeted := myinvois.New(myinvois.Options{Budgets: true, Logger: quietLogger(t)})
	for i := range 12 {
		if err := login(budgeted, i); err != nil {
			t.Fatalf("login %d: %v", i+1, err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cred := env.cred
	cred.ClientSecret = "secret-12"
	_, err = budgeted.ValidateTIN(short, cred, supplierTIN, "BRN", "x")
	if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 429 || !errors.Is(err, myinvois.ErrThrottled) || ce.RetryAfter < 50*time.Second {
		t.Errorf("13th login with budgets: %v, want ErrThrottled for about a minute", err)
	}
}
