package lifecycle

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testclock"
)

// idemBody is a request body encoded once, so that every sending of it is
// byte for byte the same.
func idemBody(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countDocuments counts the tenant's documents through the API.
func countDocuments(t *testing.T, c *e2etest.RawClient) int {
	t.Helper()
	r := c.Do("GET", "/api/v1/invoices", nil).Want(t, 200, "")
	meta, _ := r.Body["meta"].(map[string]any)
	n, _ := meta["total"].(float64)
	return int(n)
}

// idemRows counts the rows of idempotency_keys with the key (every row when
// key is "").
func idemRows(t *testing.T, db *sql.DB, key string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM idempotency_keys WHERE key = $1 OR $1 = ''`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIdempotencyConcurrent: the same POST with the same key from 20
// concurrent clients creates exactly one document; every other client gets
// the same answer replayed, or a 409 IDEMPOTENCY_KEY_IN_USE while the first
// ran.
func TestIdempotencyConcurrent(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "100000")
		f := &e2etest.DocFixture{Svc: svc, C: svc.Client(t, svc.DemoKey), API: svc.API(t, svc.DemoKey)}
		b, err := f.API.Buyers.Create(t.Context(), e2etest.ReadyBuyer("Hebat Group"))
		f.BuyerID = e2etest.Must(t, b, err).ID
		body := idemBody(t, f.Invoice("INV-IDEM-1", e2etest.Line("100", "01", 10)))

		const clients = 20
		answers := make([]*e2etest.Response, clients)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range clients {
			c := svc.Client(t, svc.DemoKey) // a client (and connection) of its own
			wg.Go(func() {
				<-start
				answers[i] = c.Do("POST", "/api/v1/invoices", body, "Idempotency-Key", "order-4711")
			})
		}
		close(start)
		wg.Wait()

		var first *e2etest.Response
		replays, inUse := 0, 0
		for _, r := range answers {
			switch {
			case r.Status == 201 && r.Header.Get("Idempotent-Replayed") == "":
				if first != nil {
					t.Errorf("two answers ran the operation:\n%s\n%s", first.Raw, r.Raw)
				}
				first = r
			case r.Status == 201:
				replays++
			case r.Status == 409 && r.ErrorCode() == "IDEMPOTENCY_KEY_IN_USE":
				inUse++
			default:
				t.Errorf("unexpected answer %d %s", r.Status, r.Raw)
			}
		}
		if first == nil {
			t.Fatal("no answer ran the operation")
		}
		for _, r := range answers {
			if r.Status == 201 && r != first {
				r.WantReplay(t, first)
			}
		}
		t.Logf("1 created, %d replayed, %d in use", replays, inUse)
		if n := countDocuments(t, f.C); n != 1 {
			t.Errorf("%d documents, want 1", n)
		}
		// Once the first has finished, every retry is its replay.
		f.C.Do("POST", "/api/v1/invoices", body, "Idempotency-Key", "order-4711").WantReplay(t, first)
		if n := countDocuments(t, f.C); n != 1 {
			t.Errorf("%d documents after a retry, want 1", n)
		}
	})
}

// TestIdempotencyRestartAndReplica: a kept answer is replayed after a
// restart of the service and, on PostgreSQL, by a second service on the same
// database.
func TestIdempotencyRestartAndReplica(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		key := svc.DemoKey
		body := idemBody(t, e2etest.ReadyBuyer("Restart Sdn. Bhd."))
		first := svc.Client(t, key).Do("POST", "/api/v1/buyers", body, "Idempotency-Key", "restart-1").WantFresh(t, 201)
		svc.Stop(t)

		again := e2etest.StartService(t, dsn)
		c := again.Client(t, key)
		c.Do("POST", "/api/v1/buyers", body, "Idempotency-Key", "restart-1").WantReplay(t, first)
		c.Do("POST", "/api/v1/buyers", idemBody(t, e2etest.ReadyBuyer("Other Sdn. Bhd.")), "Idempotency-Key", "restart-1").
			Want(t, 422, "IDEMPOTENCY_KEY_REUSED")
		if !strings.HasPrefix(dsn, "postgres") {
			return
		}
		// A second service on the same PostgreSQL database: a replica.
		replica := e2etest.StartService(t, dsn)
		rc := replica.Client(t, key)
		rc.Do("POST", "/api/v1/buyers", body, "Idempotency-Key", "restart-1").WantReplay(t, first)
		second := c.Do("POST", "/api/v1/buyers", body, "Idempotency-Key", "replica-2").WantFresh(t, 201)
		rc.Do("POST", "/api/v1/buyers", body, "Idempotency-Key", "replica-2").WantReplay(t, second)
	})
}

// TestIdempotencyKept: which answers are kept (the operation's own 4xx) and
// which are not (401, 415, 429: a retry runs the operation); another body
// or path with the same key is a 422; keys are per tenant.
func TestIdempotencyKept(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "100000")
		c := svc.Client(t, svc.DemoKey)
		buyer := idemBody(t, e2etest.ReadyBuyer("Kept Sdn. Bhd."))

		// The operation's own 422 and 404 are kept and replayed.
		bad := idemBody(t, map[string]any{"name": ""})
		first := c.Do("POST", "/api/v1/buyers", bad, "Idempotency-Key", "k-422").WantFresh(t, 422, "VALIDATION_FAILED")
		c.Do("POST", "/api/v1/buyers", bad, "Idempotency-Key", "k-422").WantReplay(t, first)
		missing := "/api/v1/documents/" + e2etest.NewID() + "/validate"
		first = c.Do("POST", missing, nil, "Idempotency-Key", "k-404").WantFresh(t, 404, "DOCUMENT_NOT_FOUND")
		c.Do("POST", missing, nil, "Idempotency-Key", "k-404").WantReplay(t, first)

		// A 401 and a 415 did not run the operation: not kept.
		anon := svc.Client(t, "eik_not_a_key")
		anon.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-401").Want(t, 401, "UNAUTHORIZED")
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-401").WantFresh(t, 201)
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-415", "Content-Type", "text/plain").
			Want(t, 415, "UNSUPPORTED_MEDIA_TYPE")
		created := c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-415").WantFresh(t, 201)
		// Nor a 413 or a 403: the retry (or another key's) runs it.
		huge := []byte(`{"name": "` + strings.Repeat("x", 1<<20) + `"}`)
		c.Do("POST", "/api/v1/buyers", huge, "Idempotency-Key", "k-413").Want(t, 413, "PAYLOAD_TOO_LARGE")
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-413").WantFresh(t, 201)
		var tenantA string
		if err := servetest.Store(t, dsn).DB().QueryRow(`SELECT tenant_id FROM api_keys LIMIT 1`).Scan(&tenantA); err != nil {
			t.Fatal(err)
		}
		svc.Client(t, e2etest.SecKey(t, dsn, tenantA, "--read-only")).Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-403").
			Want(t, 403, "FORBIDDEN")
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-403").WantFresh(t, 201)

		// The same key with another body, or another path: a 422 naming
		// the header, nothing run.
		r := c.Do("POST", "/api/v1/buyers", idemBody(t, e2etest.ReadyBuyer("Another")), "Idempotency-Key", "k-415").
			Want(t, 422, "IDEMPOTENCY_KEY_REUSED")
		if _, ok := r.FieldErrors()["Idempotency-Key"]; !ok {
			t.Errorf("IDEMPOTENCY_KEY_REUSED does not name the header: %s", r.Raw)
		}
		c.Do("POST", "/api/v1/on-behalf-sellers", buyer, "Idempotency-Key", "k-415").Want(t, 422, "IDEMPOTENCY_KEY_REUSED")
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-415").WantReplay(t, created)

		// Keys are per tenant: tenant B's same key runs B's operation.
		_, keyB := e2etest.SecTenant(t, dsn, "Other Sdn. Bhd.", "C1234567890")
		cb := svc.Client(t, keyB)
		ofB := cb.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-415").WantFresh(t, 201)
		if ofB.Data()["id"] == created.Data()["id"] {
			t.Errorf("tenant B was answered tenant A's buyer %v", ofB.Data()["id"])
		}
		cb.Do("GET", "/api/v1/buyers/"+e2etest.Str(created.Data()["id"]), nil).Want(t, 404, "BUYER_NOT_FOUND")

		// A 429 is not kept either.
		limited := e2etest.StartService(t, dsn, "--rate-limit", "1", "--rate-window", "3s")
		lc := limited.Client(t, svc.DemoKey)
		lc.Do("GET", "/api/v1/states", nil)
		lc.Do("GET", "/api/v1/states", nil)
		lc.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-429").Want(t, 429, "RATE_LIMIT_EXCEEDED")
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := lc.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "k-429")
			if r.Status != 429 || time.Now().After(deadline) {
				r.WantFresh(t, 201)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}

// TestIdempotencyBadKeys: a key that is empty, too long or not printable
// is a 422 naming the header; nothing is run or stored.
func TestIdempotencyBadKeys(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "100000")
		c := svc.Client(t, svc.DemoKey)
		db := servetest.Store(t, dsn).DB()
		buyer := idemBody(t, e2etest.ReadyBuyer("Bad Keys Sdn. Bhd."))
		before := idemRows(t, db, "")
		for name, key := range map[string]string{
			"too long":      strings.Repeat("k", 256),
			"a tab":         "a\tb",
			"not ASCII":     "clé",
			"only an empty": "",
		} {
			t.Run(name, func(t *testing.T) {
				var r *e2etest.Response
				if key == "" { // the client cannot send an empty header: plain net/http
					r = emptyKeyPost(t, svc, buyer)
				} else {
					r = c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", key)
				}
				r.Want(t, 422, "VALIDATION_FAILED")
				if _, ok := r.FieldErrors()["Idempotency-Key"]; !ok {
					t.Errorf("the 422 does not name Idempotency-Key: %s", r.Raw)
				}
			})
		}
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "a", "Idempotency-Key", "b").Want(t, 422, "VALIDATION_FAILED")
		if n := idemRows(t, db, ""); n != before {
			t.Errorf("%d keys stored after bad keys, want %d", n, before)
		}
		list := c.Do("GET", "/api/v1/buyers", nil).Want(t, 200, "")
		if n := list.Body["meta"].(map[string]any)["total"].(float64); n != 0 {
			t.Errorf("%v buyers created by requests with bad keys", n)
		}
		// The longest key, every printable character.
		printable := " !\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~"
		long := strings.Repeat("~", 255-len(printable)) + printable
		first := c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", long).WantFresh(t, 201)
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", long).WantReplay(t, first)
	})
}

// emptyKeyPost posts body with an empty Idempotency-Key header, which the
// public client cannot send.
func emptyKeyPost(t *testing.T, svc *e2etest.Service, body []byte) *e2etest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", svc.URL+"/api/v1/buyers", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+svc.DemoKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header["Idempotency-Key"] = []string{""}
	resp, err := (&http.Client{Transport: e2etest.Contract(t).Transport(t, http.DefaultTransport)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := &e2etest.Response{Status: resp.StatusCode, Header: resp.Header}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	r.Raw = buf.Bytes()
	_ = json.Unmarshal(r.Raw, &r.Body)
	return r
}

// TestIdempotencyExpiryAndLease: a key is kept 24 hours, then forgotten
// (the row purged); on PostgreSQL, a claim whose process died blocks its
// key for its lease (a minute) only.
func TestIdempotencyExpiryAndLease(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		clk := &testclock.Clock{}
		svc := e2etest.StartServiceAt(t, dsn, clk.Now, "--rate-limit", "100000")
		c := svc.Client(t, svc.DemoKey)
		db := servetest.Store(t, dsn).DB()
		buyer := idemBody(t, e2etest.ReadyBuyer("Expiry Sdn. Bhd."))

		first := c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "day-1").WantFresh(t, 201)
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "purged").WantFresh(t, 201)
		clk.Advance(23 * time.Hour)
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "day-1").WantReplay(t, first)
		clk.Advance(time.Hour + time.Second)
		second := c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "day-1").WantFresh(t, 201)
		if second.Data()["id"] == first.Data()["id"] {
			t.Errorf("after 24 hours the key still answered its first buyer")
		}
		if n := idemRows(t, db, "purged"); n != 0 {
			t.Errorf("an expired key was not purged (%d rows)", n)
		}

		// A claim left by a process that died: the key is in use for the
		// claim's lease, then a retry takes it over and runs the operation.
		// (On SQLite, one process, claims are held by the process and die
		// with it.)
		if !strings.HasPrefix(dsn, "postgres") {
			return
		}
		var tenantID string
		if err := db.QueryRow(`SELECT tenant_id FROM api_keys LIMIT 1`).Scan(&tenantID); err != nil {
			t.Fatal(err)
		}
		now := clk.Now()
		sum := sha256.Sum256([]byte("POST\x00/api/v1/buyers\x00" + string(buyer)))
		if _, err := db.Exec(`INSERT INTO idempotency_keys (tenant_id, key, fingerprint, token, lease_until, expires_at, status, headers)
			VALUES ($1, 'orphan', $2, 'dead-process', $3, $4, 0, '')`,
			tenantID, hex.EncodeToString(sum[:]), now.Add(time.Minute).UnixMicro(), now.Add(24*time.Hour).UnixMicro()); err != nil {
			t.Fatal(err)
		}
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "orphan").Want(t, 409, "IDEMPOTENCY_KEY_IN_USE")
		clk.Advance(time.Minute + time.Second)
		taken := c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "orphan").WantFresh(t, 201)
		c.Do("POST", "/api/v1/buyers", buyer, "Idempotency-Key", "orphan").WantReplay(t, taken)
	})
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdempotency measures invoice creation over HTTP with and without
// an Idempotency-Key (a new one per request, as the client sends):
//
//	go test -run '^$' -bench Idempotency -benchtime 3s ./internal/e2e/
func BenchmarkIdempotency(b *testing.B) {
	for _, e := range e2etest.Engines {
		b.Run(e.Name, func(b *testing.B) {
			svc := e2etest.StartService(b, e.DSN(b), "--rate-limit", "1000000000")
			c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
				client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}))
			ctx := b.Context()
			buyer, err := c.Buyers.Create(ctx, e2etest.ReadyBuyer("Bench Buyer Sdn. Bhd."))
			if err != nil {
				b.Fatal(err)
			}
			var mu sync.Mutex
			serial := 0
			next := func() string {
				mu.Lock()
				defer mu.Unlock()
				serial++
				return fmt.Sprintf("BENCH-%09d", serial)
			}
			doc := func(s string) *client.Document {
				return &client.Document{BuyerID: buyer.ID, InvoiceSerialNumber: s, CurrencyCode: "MYR", AutoCalculate: true,
					Lines: []client.Line{e2etest.DocLine("100", "01", "10")}, Payment: &client.Payment{PaymentMode: "03"}}
			}
			for _, mode := range []struct {
				name string
				opts []client.CallOption
			}{{"without-key", []client.CallOption{client.IdempotencyKey("")}}, {"with-key", nil}} {
				b.Run(mode.name, func(b *testing.B) {
					b.SetParallelism(4)
					cpu := processCPU(b)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if _, err := c.Documents.Create(ctx, doc(next()), mode.opts...); err != nil {
								b.Fatal(err)
							}
						}
					})
					// The CPU the process (service and client) spent per
					// creation: the cost, less blurred by waits for the disk
					// and by other processes than the time per operation.
					b.ReportMetric(float64((processCPU(b)-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}
