package invoicing_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testclock"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// The tests of this package run the lifecycle against the built-in sandbox
// over real HTTP, on a real database (a SQLite file, and PostgreSQL when
// EINVOICE_TEST_POSTGRES_URL is set), driving the workers' steps one at a
// time (RunOnce, SettleOnce) instead of running them in the background.

// eachEngine runs fn as a subtest per engine with a fresh database.
func eachEngine(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, migrated.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, migrated.Postgres(t, os.Getenv)) })
}

// world is one service (an invoicing.Service on a store) with the sandbox
// on the same database, served over HTTP.
type world struct {
	t       *testing.T
	clk     *testclock.Clock
	store   *sqlstore.Store
	sandbox *sandbox.Server
	svc     *invoicing.Service
	tenant  *einvoice.Tenant
	buyer   *einvoice.Party
	// calls counts the exchanges with the sandbox per endpoint (the
	// myinvois Endpoint names).
	calls sync.Map // endpoint -> *atomic.Int64
	// onSearch, when set, is called after each search exchange with the
	// number of searches so far; searchGate, when set, before the sandbox
	// answers a search.
	onSearch   atomic.Pointer[func(n int64)]
	searchGate atomic.Pointer[func()]
}

func newWorld(t *testing.T, dsn string) *world {
	t.Helper()
	return newWorldWith(t, dsn, nil)
}

// newWorldWith is newWorld with the service's options changed by opt (when
// not nil).
func newWorldWith(t *testing.T, dsn string, opt func(*invoicing.Options)) *world {
	t.Helper()
	ctx := context.Background()
	box, err := secretbox.New(bytes.Repeat([]byte{7}, secretbox.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx, nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	w := &world{t: t, clk: &testclock.Clock{}, store: st}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	so := sandbox.Options{DB: st.DB(), ReadDB: st.ReadDB(), Postgres: st.Engine() == sqlstore.Postgres, Now: w.clk.Now, Logger: logger}
	sandbox.BindTenants(&so, st)
	w.sandbox = sandbox.New(so)
	hs := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if gate := w.searchGate.Load(); gate != nil && strings.HasSuffix(r.URL.Path, "/documents/search") {
			(*gate)()
		}
		w.sandbox.ServeHTTP(rw, r)
	}))
	t.Cleanup(hs.Close)
	client := myinvois.New(myinvois.Options{Now: w.clk.Now, Timeout: 5 * time.Second, Logger: logger,
		OnCall: func(endpoint string, _ int, _ time.Duration) {
			n := w.counter(endpoint).Add(1)
			if f := w.onSearch.Load(); f != nil && endpoint == myinvois.EndpointSearch {
				(*f)(n)
			}
		}})
	o := invoicing.Options{Store: st, Authority: client, SandboxAPI: hs.URL, SandboxPortal: hs.URL + sandbox.PortalPath,
		Now: w.clk.Now, NewID: newID, Logger: logger, Wait: 5 * time.Second, Argon2: testArgon2}
	if opt != nil {
		opt(&o)
	}
	w.svc = invoicing.New(o)
	if w.tenant, err = w.svc.CreateTenant(ctx, einvoice.DemoProfile()); err != nil {
		t.Fatal(err)
	}
	p := einvoice.DemoProfile()
	w.buyer, err = w.svc.CreateParty(ctx, w.tenant.ID, einvoice.KindBuyer, &einvoice.Party{Name: "Hebat Trading Sdn. Bhd.",
		TIN: "C20880050010", IDType: "BRN", IDValue: "201901234567", SSTRegistrationNumber: "NA", Address: p.Address, Contact: p.Contact})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// sqliteDSN is a new SQLite file, for the tests whose subject is not the
// engine.
func sqliteDSN(t *testing.T) string { return migrated.SQLite(t) }

// testArgon2 makes password hashes cheap in tests.
var testArgon2 = people.Argon2Params{MemoryKiB: 1024, Iterations: 1, Parallelism: 1}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// testWriter sends log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimSpace(p)))
	return len(p), nil
}

func (w *world) counter(endpoint string) *atomic.Int64 {
	c, _ := w.calls.LoadOrStore(endpoint, new(atomic.Int64))
	return c.(*atomic.Int64)
}

// readyInvoices creates n invoices with serials prefix-0001... and validates
// them (ready), a few at a time; it returns their ids in serial order.
func (w *world) readyInvoices(prefix string, n int) []string {
	w.t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	errs := make([]error, n)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				ids[i], errs[i] = w.readyInvoice(ctx, fmt.Sprintf("%s-%04d", prefix, i+1))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			w.t.Fatal(err)
		}
	}
	return ids
}

// readyInvoice creates one invoice and validates it.
func (w *world) readyInvoice(ctx context.Context, serial string) (string, error) {
	num := func(s string) *money.Number {
		n, err := money.ParseNumber(s)
		if err != nil {
			panic(err) // the constants below
		}
		return &n
	}
	d := &einvoice.Document{BuyerID: w.buyer.ID, InvoiceSerialNumber: serial, CurrencyCode: "MYR", AutoCalculate: true,
		Lines: []einvoice.Line{{Classifications: []string{"001"}, ProductDescription: "Laptop stand", Quantity: num("2"),
			UnitCode: "H87", UnitPrice: num("49.90"), Taxes: []einvoice.LineTax{{TaxType: "01", TaxRate: num("10")}}}}}
	created, _, err := w.svc.CreateDocument(ctx, w.tenant.ID, "", einvoice.KindInvoice, d)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", serial, err)
	}
	res, err := w.svc.ValidateDocument(ctx, w.tenant.ID, "", created.ID)
	if err != nil || !res.Passed() {
		return "", fmt.Errorf("validate %s: %v %+v", serial, err, res)
	}
	return created.ID, nil
}

// submitBulk submits ids in bulks of at most 100.
func (w *world) submitBulk(ids []string) {
	w.t.Helper()
	for len(ids) > 0 {
		n := min(len(ids), invoicing.MaxBulk)
		if _, err := w.svc.SubmitBulk(context.Background(), w.tenant.ID, "", ids[:n]); err != nil {
			w.t.Fatalf("submit bulk: %v", err)
		}
		ids = ids[n:]
	}
}

// forgetMark clears a job's maybe-sent mark behind the worker's back: a
// stand-in for a settle that wrongly concluded the document was never sent,
// so that the next worker step sends it again.
func (w *world) forgetMark(id string) {
	w.t.Helper()
	ctx := context.Background()
	j, err := w.store.GetJob(ctx, w.tenant.ID, id)
	if err != nil {
		w.t.Fatal(err)
	}
	j.MaybeSent = false
	if err := w.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: j.LeaseOwner}); err != nil {
		w.t.Fatal(err)
	}
}

// job reads a document's job.
func (w *world) job(id string) *einvoice.Job {
	w.t.Helper()
	j, err := w.store.GetJob(context.Background(), w.tenant.ID, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return j
}

// history returns the notes of a document's events.
func (w *world) history(id string) []string {
	w.t.Helper()
	_, events, err := w.svc.GetDocument(context.Background(), w.tenant.ID, id)
	if err != nil {
		w.t.Fatal(err)
	}
	var notes []string
	for _, e := range events {
		notes = append(notes, e.Note)
	}
	return notes
}

// document reads a document.
func (w *world) document(id string) *einvoice.Document {
	w.t.Helper()
	d, err := w.store.GetDocument(context.Background(), w.tenant.ID, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return d
}

// received returns the uuids the sandbox holds for a code number, from its
// own tables, oldest first.
func (w *world) received(code string) []string {
	w.t.Helper()
	rows, err := w.store.ReadDB().Query(`SELECT uuid FROM sandbox_documents WHERE internal_id = $1 ORDER BY received_at, position`, code)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			w.t.Fatal(err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		w.t.Fatal(err)
	}
	return out
}

// work runs the workers' steps (settle, then send and poll) until two rounds
// in a row found nothing due (at most rounds times), moving the clock on
// 10 seconds between rounds so that released and polled jobs come due.
func (w *world) work(rounds int) {
	w.t.Helper()
	ctx := context.Background()
	idle := 0
	for range rounds {
		settled, err := w.svc.SettleOnce(ctx)
		if err != nil {
			w.t.Fatalf("SettleOnce: %v", err)
		}
		n, err := w.svc.RunOnce(ctx)
		if err != nil {
			w.t.Fatalf("RunOnce: %v", err)
		}
		if idle = idle + 1; n+settled > 0 {
			idle = 0
		}
		if idle == 2 {
			return
		}
		w.clk.Advance(10 * time.Second)
	}
}
