package submission_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/submission"
	"github.com/einvoice/einvoice/internal/testdb"
)

// The tests of this package run the lifecycle against the built-in sandbox
// over real HTTP, on a real database (a SQLite file, and PostgreSQL when
// EINVOICE_TEST_POSTGRES_URL is set), driving the workers' steps one at a
// time (RunOnce, SettleOnce) instead of running them in the background.

// eachEngine runs fn as a subtest per engine with a fresh database.
func eachEngine(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, testdb.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, testdb.Postgres(t, os.Getenv)) })
}

// clock is a test clock that can jump ahead; every part of a world reads it.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// world is one service's lifecycle (a Manager on a store) with the sandbox
// on the same database, served over HTTP.
type world struct {
	t       *testing.T
	clk     *clock
	store   *sqlstore.Store
	sandbox *sandbox.Server
	life    *submission.Manager
	svc     *einvoice.Service
	tenant  *einvoice.Tenant
	buyer   *einvoice.Party
	// calls counts the exchanges with the sandbox per endpoint (the
	// myinvois Endpoint names).
	calls sync.Map // endpoint -> *atomic.Int64
}

func newWorld(t *testing.T, dsn string) *world {
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
	w := &world{t: t, clk: &clock{}, store: st}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	w.sandbox = sandbox.New(sandbox.Options{DB: st.DB(), ReadDB: st.ReadDB(), Postgres: st.Engine() == sqlstore.Postgres,
		Now: w.clk.Now, Logger: logger})
	hs := httptest.NewServer(w.sandbox)
	t.Cleanup(hs.Close)
	client := myinvois.New(myinvois.Options{Now: w.clk.Now, Timeout: 5 * time.Second, Logger: logger,
		OnCall: func(endpoint string, _ int, _ time.Duration) { w.counter(endpoint).Add(1) }})
	w.life = submission.New(submission.Options{Store: st, Authority: client, SandboxAPI: hs.URL, SandboxPortal: hs.URL + sandbox.PortalPath,
		Now: w.clk.Now, NewID: newID, Logger: logger, Wait: 5 * time.Second})
	w.svc = &einvoice.Service{Store: st, Now: w.clk.Now, NewID: newID, Authority: w.life}
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
// them (ready); it returns their ids.
func (w *world) readyInvoices(prefix string, n int) []string {
	w.t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	for i := range n {
		d := &einvoice.Document{BuyerID: w.buyer.ID, InvoiceSerialNumber: fmt.Sprintf("%s-%04d", prefix, i+1), CurrencyCode: "MYR",
			AutoCalculate: true, Lines: []einvoice.Line{{Classifications: []string{"001"}, ProductDescription: "Laptop stand",
				Quantity: w.num("2"), UnitCode: "H87", UnitPrice: w.num("49.90"), Taxes: []einvoice.LineTax{{TaxType: "01", TaxRate: w.num("10")}}}}}
		created, _, err := w.svc.CreateDocument(ctx, w.tenant.ID, "", einvoice.KindInvoice, d)
		if err != nil {
			w.t.Fatalf("create %s: %v", d.InvoiceSerialNumber, err)
		}
		res, err := w.svc.ValidateDocument(ctx, w.tenant.ID, "", created.ID)
		if err != nil || !res.Passed() {
			w.t.Fatalf("validate %s: %v %+v", d.InvoiceSerialNumber, err, res)
		}
		ids[i] = created.ID
	}
	return ids
}

func (w *world) num(s string) *money.Number {
	n, err := money.ParseNumber(s)
	if err != nil {
		w.t.Fatal(err)
	}
	return &n
}

// submitBulk submits ids in bulks of at most 100.
func (w *world) submitBulk(ids []string) {
	w.t.Helper()
	for len(ids) > 0 {
		n := min(len(ids), submission.MaxBulk)
		if _, err := w.life.SubmitBulk(context.Background(), w.tenant.ID, "", ids[:n]); err != nil {
			w.t.Fatalf("submit bulk: %v", err)
		}
		ids = ids[n:]
	}
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

// work runs the workers' steps (settle, then send and poll) until no job is
// due (at most rounds times), moving the clock on between rounds so that
// released jobs come due.
func (w *world) work(rounds int) {
	w.t.Helper()
	ctx := context.Background()
	for range rounds {
		settled, err := w.life.SettleOnce(ctx)
		if err != nil {
			w.t.Fatalf("SettleOnce: %v", err)
		}
		n, err := w.life.RunOnce(ctx)
		if err != nil {
			w.t.Fatalf("RunOnce: %v", err)
		}
		if n+settled == 0 {
			return
		}
		w.clk.advance(10 * time.Second)
	}
}
