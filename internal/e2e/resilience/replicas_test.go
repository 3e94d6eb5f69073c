package resilience

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to look into the shared database

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// TestReplicas runs three processes of the real binary on one PostgreSQL
// database and checks that they behave as one service: migrations and the
// demo tenant happen once, a key's rate limit holds across the three, and
// documents submitted through all three (one by one and in bulk, with the
// authority slow on one of them) all end Valid, each sent to the authority
// exactly once, although one process is killed (SIGKILL) mid-work.
func TestReplicas(t *testing.T) {
	// Not in parallel: three replicas, each with its pools, under 45
	// requests at once take most of PostgreSQL's 100 connections (beside
	// the kill tests, "too many clients already").
	if os.Getenv(testdb.EnvPostgres) == "" {
		t.Skipf("PostgreSQL only: set %s to run it", testdb.EnvPostgres)
	}
	bin := servetest.Build(t)

	t.Run("rate limit", func(t *testing.T) {
		dsn := testdb.Postgres(t, os.Getenv)
		rs := servetest.StartReplicas(t, bin, dsn, 3, replicaFlags("30")...)
		checkStartedOnce(t, rs, dsn)
		key, _ := servetest.ReplicasDemoKey(t, rs)
		testRateLimitAcrossThree(t, rs, key, dsn, bin)
	})

	t.Run("submit and kill", func(t *testing.T) {
		dsn := testdb.Postgres(t, os.Getenv)
		rs := servetest.StartReplicas(t, bin, dsn, 3, replicaFlags("100000")...)
		checkStartedOnce(t, rs, dsn)
		key, _ := servetest.ReplicasDemoKey(t, rs)
		testSubmitAndKill(t, rs, key, dsn)
	})
}

// replicaFlags are the serve flags of every replica.
func replicaFlags(rateLimit string) []string {
	return []string{"--rate-limit", rateLimit, "--sandbox-delay", "0", "--sandbox-faults",
		"--submit-wait", "2s", "--workers", "2", "--log-format", "json"}
}

// replicaLease is the lease of a job with --submit-wait 2s (six times the wait).
const replicaLease = 12 * time.Second

// checkStartedOnce checks that the migrations ran once (each version was
// applied by exactly one process and is recorded once) and that the demo
// tenant and its key were created once.
func checkStartedOnce(t *testing.T, rs []*servetest.Replica, dsn string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "sqlstore", "migrations", "postgres", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations of PostgreSQL: %v %v", files, err)
	}
	applied := map[int64][]string{} // version -> processes that applied it
	for _, r := range rs {
		for line := range strings.SplitSeq(r.Stderr(), "\n") {
			// One line per start that migrated: the versions from..to
			// (goose applies the pending ones in order).
			var rec struct {
				Msg      string `json:"msg"`
				From, To int64
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "migrations applied" {
				for v := rec.From; v <= rec.To; v++ {
					applied[v] = append(applied[v], r.Name)
				}
			}
		}
	}
	if len(applied) != len(files) {
		t.Errorf("%d migrations applied (%v), want the %d of %s", len(applied), applied, len(files), filepath.Dir(files[0]))
	}
	for v, by := range applied {
		if len(by) != 1 {
			t.Errorf("migration %d applied by %v, want by one process", v, by)
		}
	}
	db := openDB(t, dsn)
	rows, err := db.Query(`SELECT version_id, COUNT(*) FROM goose_db_version GROUP BY version_id ORDER BY version_id`)
	if err != nil {
		t.Fatalf("goose table: %v", err)
	}
	defer rows.Close()
	versions := 0
	for rows.Next() {
		var v, n int64
		if err := rows.Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("goose_db_version holds version %d %d times, want once", v, n)
		}
		if v > 0 {
			versions++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if versions != len(files) {
		t.Errorf("goose_db_version holds %d versions, want %d", versions, len(files))
	}
	var tenants, keys int
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM tenants), (SELECT COUNT(*) FROM api_keys)`).Scan(&tenants, &keys); err != nil {
		t.Fatal(err)
	}
	if tenants != 1 || keys != 1 {
		t.Errorf("after three first starts: %d tenants and %d API keys, want the demo tenant and its key once", tenants, keys)
	}
}

// openDB opens the shared database, closed after the test.
func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", testdb.ServerURL(dsn))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return db
}

// replicaClients returns the public client of each replica for key, in the
// order of rs. Nothing is retried (a test sees every answer as the service
// gave it, and a killed replica's failures can be told apart), and every
// exchange goes through a replicaTransport: checked against the OpenAPI
// document and counted in tl.
func replicaClients(t *testing.T, rs []*servetest.Replica, key string, tl *tally) []*client.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 16
	t.Cleanup(base.CloseIdleConnections)
	checked := e2etest.Contract(t).Transport(t, base)
	cs := make([]*client.Client, len(rs))
	for i, r := range rs {
		hc := &http.Client{Transport: &replicaTransport{t: t, r: r, tl: tl, next: checked}, Timeout: 30 * time.Second}
		cs[i] = client.New(r.URL, key, client.WithRetries(0), client.WithHTTPClient(hc))
	}
	return cs
}

// replicaTransport carries the exchanges of one replica's client: it checks
// that each answer has an X-Request-Id and, when JSON, is a JSON object,
// and records each exchange (or transport error) in the tally. It never
// stops the test, so that goroutines can use it.
type replicaTransport struct {
	t    *testing.T
	r    *servetest.Replica
	tl   *tally
	next http.RoundTripper
}

func (tr *replicaTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tr.next.RoundTrip(req)
	if err != nil {
		tr.tl.record(tr.r, req.Method, req.URL.Path, 0, nil, err)
		return nil, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		tr.tl.record(tr.r, req.Method, req.URL.Path, 0, nil, err)
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			tr.t.Errorf("%s %s on %s: response is not a JSON object: %v\n%s", req.Method, req.URL.Path, tr.r.Name, err, raw)
		}
	}
	if resp.Header.Get("X-Request-Id") == "" {
		tr.t.Errorf("%s %s on %s: no X-Request-Id", req.Method, req.URL.Path, tr.r.Name)
	}
	tr.tl.record(tr.r, req.Method, req.URL.Path, resp.StatusCode, raw, nil)
	return resp, nil
}

// answered reports whether err is nil or the service's answer (a
// *client.Error), rather than a failure to reach the replica.
func answered(err error) bool {
	var e *client.Error
	return err == nil || errors.As(err, &e)
}

// sampleAs converts one of the tests' sample bodies to the client's type T,
// failing the test if T has no field for one of its keys (so that the
// client sends what the sample says).
func sampleAs[T any](t *testing.T, sample map[string]any) *T {
	t.Helper()
	raw, err := json.Marshal(sample)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var v T
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("sample as %T: %v: %s", v, err, raw)
	}
	return &v
}

// tally counts what the clients saw: answers per status, 5xx answers and
// transport errors (except from a replica after it was killed).
type tally struct {
	mu       sync.Mutex
	statuses map[string]int // "replica N: 202" -> count
	problems []string
	expected int // transport errors of the killed replica
}

func newTally() *tally { return &tally{statuses: map[string]int{}} }

// record notes one exchange: an answer of status with body, or the
// transport error err.
func (tl *tally) record(r *servetest.Replica, method, path string, status int, body []byte, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	switch {
	case err != nil && r.Killed():
		tl.expected++
		return
	case err != nil:
		tl.problems = append(tl.problems, fmt.Sprintf("%s %s on %s: transport error: %v", method, path, r.Name, err))
		return
	}
	tl.statuses[fmt.Sprintf("%s: %d", r.Name, status)]++
	if status >= 500 {
		tl.problems = append(tl.problems, fmt.Sprintf("%s %s on %s: %d %s", method, path, r.Name, status, body))
	}
}

func (tl *tally) expectedErrors() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.expected
}

func (tl *tally) check(t *testing.T) {
	t.Helper()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, p := range tl.problems {
		t.Errorf("a client saw %s", p)
	}
}

// getStates is GET /api/v1/states through Do, for its headers.
func getStates(ctx context.Context, c *client.Client) (*client.Response, error) {
	return c.Do(ctx, &client.Request{Method: http.MethodGet, Path: "/api/v1/states"}, nil)
}

// testRateLimitAcrossThree: a key gets its limit across the three replicas,
// even when its requests arrive at all three at once; another key, created
// with the admin command, has its own window.
func testRateLimitAcrossThree(t *testing.T, rs []*servetest.Replica, key, dsn, bin string) {
	ctx := t.Context()
	tl := newTally()
	cs := replicaClients(t, rs, key, tl)
	var ok, limited atomic.Int32
	var mu sync.Mutex
	var beyondWindow []string // 429s whose Retry-After exceeds the 60 s window
	var wg sync.WaitGroup
	for i := range 45 {
		c, r := cs[i%len(cs)], rs[i%len(cs)]
		wg.Go(func() {
			resp, err := getStates(ctx, c)
			var e *client.Error
			switch {
			case err == nil:
				ok.Add(1)
			case errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests:
				limited.Add(1)
				ra, aerr := strconv.Atoi(resp.Header.Get("Retry-After"))
				if aerr != nil || ra < 1 || e.Code != client.CodeRateLimitExceeded || resp.Header.Get("X-RateLimit-Remaining") != "0" {
					t.Errorf("429 on %s: Retry-After %q, X-RateLimit-Remaining %q, %s; want at least 1 second, 0, RATE_LIMIT_EXCEEDED",
						r.Name, resp.Header.Get("Retry-After"), resp.Header.Get("X-RateLimit-Remaining"), e.Body)
				}
				if e.RetryAfter != time.Duration(ra)*time.Second {
					t.Errorf("429 on %s: the client read Retry-After %q as %s", r.Name, resp.Header.Get("Retry-After"), e.RetryAfter)
				}
				if ra > 60 {
					mu.Lock()
					beyondWindow = append(beyondWindow, fmt.Sprintf("Retry-After %d on %s", ra, r.Name))
					mu.Unlock()
				}
			case errors.As(err, &e):
				t.Errorf("GET /api/v1/states on %s: %d %s", r.Name, e.StatusCode, e.Body)
			}
			// A transport error is the tally's (replicaTransport).
		})
	}
	wg.Wait()
	tl.check(t)
	if ok.Load() != 30 || limited.Load() != 15 {
		t.Errorf("45 requests of one key over three replicas (--rate-limit 30): %d allowed, %d limited (%v); want 30 and 15",
			ok.Load(), limited.Load(), tl.statuses)
	}

	// A second key of the tenant, made by the admin command of the binary,
	// counts in its own window.
	_, tenantID := servetest.ReplicasDemoKey(t, rs)
	cmd := exec.Command(bin, "key", "create", "--tenant", tenantID, "--db", dsn)
	cmd.Env = servetest.ChildEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	second := strings.TrimSpace(string(out))
	if err != nil || !servetest.KeyPattern.MatchString(second) {
		t.Fatalf("einvoice key create: %v %q %s", err, out, stderr.String())
	}
	for i, c := range replicaClients(t, rs, second, tl) {
		resp, err := getStates(ctx, c)
		if err != nil {
			t.Fatalf("GET /api/v1/states on %s with the second key: %v", rs[i].Name, err)
		}
		if resp.Header.Get("X-RateLimit-Limit") != "30" {
			t.Errorf("X-RateLimit-Limit = %q, want 30", resp.Header.Get("X-RateLimit-Limit"))
		}
	}
	if _, err := getStates(ctx, cs[0]); !answered(err) {
		t.Fatalf("GET /api/v1/states on %s: %v", rs[0].Name, err)
	} else {
		e2etest.WantErr(t, err, http.StatusTooManyRequests, client.CodeRateLimitExceeded)
	}

	// A 429 never asks for more than the window (60 s), although replicas'
	// clocks differ and concurrent first requests race to open it.
	if len(beyondWindow) > 0 {
		t.Errorf("Retry-After beyond the 60 s window: %v", beyondWindow)
	}
}

// replicaDoc is one invoice of the submit test.
type replicaDoc struct {
	id, serial string
	answered   atomic.Bool // a submit of it was answered (not lost with the killed replica)
}

// testSubmitAndKill: documents created, validated and submitted through the
// three replicas, with the authority slow on one of them, which is killed
// while it works; all end Valid, each sent exactly once.
func testSubmitAndKill(t *testing.T, rs []*servetest.Replica, key, dsn string) {
	ctx := t.Context()
	tl := newTally()
	defer tl.check(t)
	cs := replicaClients(t, rs, key, tl)
	db := openDB(t, dsn)
	victim := rs[2]
	survivors, survivorReplicas := cs[:2], rs[:2]

	profile, err := cs[1].Profile.Update(ctx, sampleAs[client.Profile](t, e2etest.SampleProfile()), nil)
	e2etest.Must(t, profile, err)
	buyer, err := cs[2].Buyers.Create(ctx, sampleAs[client.Party](t, e2etest.SampleBuyer()))
	buyer = e2etest.Must(t, buyer, err)
	if !buyer.IsReady {
		t.Fatalf("buyer not ready: %+v", buyer)
	}

	// 60 invoices, created round robin over the three and validated by the
	// next one.
	const n = 60
	docs := make([]*replicaDoc, n)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := w; i < n; i += 6 {
				serial := fmt.Sprintf("INV-REPL-%03d", i)
				body := sampleAs[client.Document](t, e2etest.SingleLineBody(serial))
				body.BuyerID = buyer.ID
				c, r := cs[i%3], rs[i%3]
				doc, err := c.Documents.Create(ctx, body)
				if err != nil {
					t.Errorf("create %s on %s: %v", serial, r.Name, err)
					return
				}
				v, vr := cs[(i+1)%3], rs[(i+1)%3]
				res, err := v.Documents.Validate(ctx, doc.ID)
				if err != nil || res.Status != client.StatusReady {
					t.Errorf("validate %s on %s: %+v %v", serial, vr.Name, res, err)
					return
				}
				docs[i] = &replicaDoc{id: doc.ID, serial: serial}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// The authority, as reached by the victim, answers half of its submits
	// after 4 s: past the 2 s wait, so those submits answer 202 and their
	// outcome is left to the workers.
	postFault(t, victim, map[string]any{"endpoint": "submit", "kind": "delay", "share": 0.5, "delay": "4s"})

	// The first 36 are submitted one by one through replica i%3 (three at a
	// time per replica), the other 24 in three bulk submits of 8, one
	// through each replica; all at once.
	var victim202, victimInFlight, answered202, pendingBulk atomic.Int32
	start := time.Now()
	var subs sync.WaitGroup
	for p := range 3 {
		c, r := cs[p], rs[p]
		queue := make(chan *replicaDoc)
		for range 3 {
			subs.Go(func() {
				for d := range queue {
					if r == victim {
						victimInFlight.Add(1)
					}
					sub, err := c.Documents.Submit(ctx, d.id)
					if r == victim {
						victimInFlight.Add(-1)
					}
					if !answered(err) {
						continue
					}
					d.answered.Store(true)
					switch {
					case err != nil:
						t.Errorf("submit %s on %s: %v", d.serial, r.Name, err)
					case !sub.Pending && sub.Status == client.StatusSubmitted && len(sub.DocumentUUID) == 26:
					case sub.Pending && sub.Status == client.StatusSubmitting:
						answered202.Add(1)
						if r == victim {
							victim202.Add(1)
						}
					default:
						t.Errorf("submit %s on %s: %+v", d.serial, r.Name, sub)
					}
				}
			})
		}
		subs.Go(func() {
			defer close(queue)
			for i := p; i < 36; i += 3 {
				if r.Killed() {
					return // lost with the replica: sent again below
				}
				queue <- docs[i]
			}
		})
		var bulk []*replicaDoc
		for i := 36 + p; i < n; i += 3 {
			bulk = append(bulk, docs[i])
		}
		subs.Go(func() {
			if r == victim {
				victimInFlight.Add(1)
				defer victimInFlight.Add(-1)
			}
			res := submitBulk(t, c, r, bulk)
			if r == victim && res != nil {
				victim202.Add(int32(len(res.Pending)))
			}
			if res != nil {
				pendingBulk.Add(int32(len(res.Pending)))
			}
		})
	}

	// Kill the victim while it works: once three of its documents were left
	// to the workers (202, or pending in a bulk answer) and another request
	// of it is under way (or after 15 s).
	killDeadline := time.Now().Add(15 * time.Second)
	for !(victim202.Load() >= 3 && victimInFlight.Load() > 0) && time.Now().Before(killDeadline) {
		time.Sleep(10 * time.Millisecond)
	}
	inFlightAtKill := victimInFlight.Load()
	victim.Kill(t)
	killedAt := time.Now()
	var leased int
	if err := db.QueryRow(`SELECT COUNT(*) FROM submission_jobs WHERE state = 'pending' AND lease_until > $1`,
		killedAt.UnixMicro()).Scan(&leased); err != nil {
		t.Fatalf("submission_jobs: %v", err)
	}
	t.Logf("killed %s %s after the first submit, with %d of its documents left to the workers and %d of its requests under way; %d jobs leased (by any replica) at the kill",
		victim.Name, killedAt.Sub(start).Round(time.Millisecond), victim202.Load(), inFlightAtKill, leased)
	subs.Wait()

	// What the killed replica did not answer, a client sends again through
	// the others (a load balancer's retry): already recorded, it answers
	// 202 (or 409 once sent); otherwise it is submitted now.
	var lostBulk []*replicaDoc
	lost := 0
	for i, d := range docs {
		if d.answered.Load() {
			continue
		}
		lost++
		if i >= 36 {
			lostBulk = append(lostBulk, d)
			continue
		}
		c, r := survivors[i%2], survivorReplicas[i%2]
		_, err := c.Documents.Submit(ctx, d.id)
		if !answered(err) {
			continue
		}
		var e *client.Error
		switch {
		case err == nil:
		case errors.As(err, &e) && e.StatusCode == http.StatusConflict && e.Code == client.CodeDocumentSubmitted:
		default:
			t.Errorf("submit %s again on %s: %v", d.serial, r.Name, err)
		}
	}
	if len(lostBulk) > 0 {
		submitBulk(t, survivors[1], survivorReplicas[1], lostBulk)
	}
	t.Logf("single submits answered 202: %d, documents pending in bulk answers: %d; %d documents submitted again after the kill; %d transport errors from %s after it was killed",
		answered202.Load(), pendingBulk.Load(), lost, tl.expectedErrors(), victim.Name)

	// Every document ends Valid: wait (bounded) through the survivors. The
	// list (which asks the authority nothing) tells how many are Valid; a
	// few statuses per round are asked too (each asks the authority, whose
	// rate limits are shared by the replicas).
	valid := map[string]bool{}
	deadline := killedAt.Add(90 * time.Second)
	for round := 0; ; round++ {
		c := survivors[round%2]
		total := -1
		if page, err := c.Documents.List(ctx, &client.DocumentListOptions{Status: client.StatusValid,
			ListOptions: client.ListOptions{PerPage: 1}}); err == nil {
			total = page.Meta.Total
		}
		if total == n {
			break
		}
		asked := 0
		for i := range n {
			d := docs[(round*2+i)%n]
			if valid[d.id] {
				continue
			}
			if st, err := c.Documents.Status(ctx, d.id); err == nil && st.Status == client.StatusValid {
				valid[d.id] = true
			}
			if asked++; asked == 2 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("%d of %d documents Valid %s after the kill", total, n, time.Since(killedAt).Round(time.Second))
			break
		}
		time.Sleep(time.Second)
	}
	t.Logf("all documents Valid %s after the kill (%s after the first submit)",
		time.Since(killedAt).Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond))

	// Each one's status and history, through the survivors: one way from
	// draft to Valid, whoever took each step.
	stale := 0
	linkClient := &http.Client{Timeout: 30 * time.Second}
	for i, d := range docs {
		c, r := survivors[i%2], survivorReplicas[i%2]
		st, err := c.Documents.Status(ctx, d.id)
		if err != nil {
			t.Errorf("status of %s on %s: %v", d.serial, r.Name, err)
			continue
		}
		if st.Status != client.StatusValid {
			t.Errorf("%s is %v, want Valid: %+v", d.serial, st.Status, st)
			continue
		}
		replicaWantValid(t, d.serial, st)
		if link := st.ValidationURL; !strings.HasPrefix(link, r.URL+"/sandbox/portal/") {
			t.Errorf("%s: validation_url %q, want the portal of the built-in sandbox of %s", d.serial, link, r.Name)
		} else if resp, err := linkClient.Get(link); err != nil || resp.StatusCode != 200 {
			t.Errorf("%s: GET %s: %v %v", d.serial, link, resp, err)
		} else {
			resp.Body.Close()
		}
		if st.Stale {
			stale++
		}
		c, r = survivors[(i+1)%2], survivorReplicas[(i+1)%2]
		doc, err := c.Documents.Get(ctx, d.id)
		if err != nil {
			t.Errorf("GET %s on %s: %v", d.serial, r.Name, err)
			continue
		}
		var steps []string
		for _, ev := range doc.History {
			steps = append(steps, string(ev.Status))
		}
		if got := strings.Join(steps, ","); got != "draft,ready,submitting,Submitted,Valid" {
			t.Errorf("%s: history %s, want draft,ready,submitting,Submitted,Valid: %+v", d.serial, got, doc.History)
		}
	}
	if stale > 0 {
		t.Logf("%d of the last status answers were stale (the authority could not be asked)", stale)
	}

	// The authority received each document exactly once, and nothing else.
	serials := make([]string, n)
	for i, d := range docs {
		serials[i] = d.serial
	}
	for _, r := range survivorReplicas {
		st := replicaStats(t, r)
		st.SentOnce(t, serials...)
		if st.Documents != n {
			t.Errorf("the sandbox (through %s) holds %d documents, want %d", r.Name, st.Documents, n)
		}
	}

	// The replicas share the authority's rate budgets (in the database):
	// the survivors met no 429 from it, although the three together could
	// have sent more than its limits allow.
	for _, r := range survivorReplicas {
		if lines := authority429s(t, r); len(lines) > 0 {
			t.Errorf("%s met 429s from the authority: %s", r.Name, strings.Join(lines, "; "))
		}
	}

	// The outbox: one job per document, no submit job left, no lease held
	// longer than a lease, and (soon) every job done.
	checkOutbox(t, db, n)

	found, resent := 0, 0
	for _, r := range rs[:2] {
		found += strings.Count(r.Stderr(), "unknown outcome settled: the authority has the document")
		resent += strings.Count(r.Stderr(), "unknown outcome settled: the authority does not have the document")
	}
	t.Logf("answers: %v; unknown outcomes settled by the survivors: %d found at the authority, %d sent again", tl.statuses, found, resent)
}

// replicaWantValid checks a Valid document's status: the authority's uuid,
// long id and validation time, and the validation link built of them.
func replicaWantValid(t *testing.T, what string, st *client.SubmissionStatus) {
	t.Helper()
	uuid, long := st.DocumentUUID, st.DocumentLongID
	if len(uuid) != 26 || strings.ToUpper(uuid) != uuid || len(long) < 26 || st.ValidatedAt == nil {
		t.Errorf("%s: status = %+v, want a 26-character uuid, a long id and validated_at", what, st)
	}
	if u := st.ValidationURL; !strings.HasSuffix(u, "/"+uuid+"/share/"+long) {
		t.Errorf("%s: validation_url = %q, want .../%s/share/%s", what, u, uuid, long)
	}
}

// checkOutbox looks at submission_jobs in the shared database: one job per
// document, no submit job left pending, no lease held longer than a lease
// (a dead owner's leases expire), and every job done within a bound.
func checkOutbox(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	count := func(now time.Time) (total, submitPending, pending, overLeased int) {
		err := db.QueryRow(`SELECT COUNT(*),
				COUNT(*) FILTER (WHERE kind = 'submit' AND state = 'pending'),
				COUNT(*) FILTER (WHERE state = 'pending'),
				COUNT(*) FILTER (WHERE lease_until > $1)
			FROM submission_jobs`, now.Add(replicaLease).UnixMicro()).Scan(&total, &submitPending, &pending, &overLeased)
		if err != nil {
			t.Fatalf("submission_jobs: %v", err)
		}
		return
	}
	total, submitPending, _, overLeased := count(time.Now())
	if total != n {
		t.Errorf("submission_jobs holds %d jobs, want one per document (%d)", total, n)
	}
	if submitPending > 0 {
		t.Errorf("%d submit jobs still pending although every document is Valid", submitPending)
	}
	if overLeased > 0 {
		t.Errorf("%d jobs leased for longer than a lease (%s)", overLeased, replicaLease)
	}
	// Poll jobs of documents found Valid by a status request close when a
	// worker next takes them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		now := time.Now()
		_, _, pending, _ := count(now)
		if pending == 0 {
			break
		}
		if now.After(deadline) {
			rows, err := db.Query(`SELECT kind, attempts, lease_until, next_attempt_at, last_error FROM submission_jobs WHERE state = 'pending'`)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for rows.Next() {
				var kind, lastErr string
				var attempts int
				var lease, next int64
				if err := rows.Scan(&kind, &attempts, &lease, &next, &lastErr); err != nil {
					t.Fatal(err)
				}
				left = append(left, fmt.Sprintf("%s: %d attempts, lease until now%+v, next attempt now%+v, last error %q", kind, attempts,
					time.UnixMicro(lease).Sub(now).Round(time.Second), time.UnixMicro(next).Sub(now).Round(time.Second), lastErr))
			}
			rows.Close()
			t.Errorf("%d jobs still pending 30s after every document was Valid: %v", pending, left)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	rows, err := db.Query(`SELECT kind, state, COUNT(*) FROM submission_jobs GROUP BY kind, state ORDER BY kind, state`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var kinds []string
	for rows.Next() {
		var kind, state string
		var c int
		if err := rows.Scan(&kind, &state, &c); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, fmt.Sprintf("%s/%s: %d", kind, state, c))
	}
	t.Logf("submission_jobs: %v", kinds)
}

// submitBulk submits docs in one bulk request through c (the client of r);
// every one must be accepted or pending (or, sent again, already
// submitted). It returns nil when the replica did not answer.
func submitBulk(t *testing.T, c *client.Client, r *servetest.Replica, docs []*replicaDoc) *client.BulkResult {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.id
	}
	res, err := c.Documents.SubmitBulk(t.Context(), ids)
	if !answered(err) {
		return nil
	}
	if err != nil {
		t.Errorf("bulk submit on %s: %v", r.Name, err)
		return nil
	}
	for _, d := range docs {
		d.answered.Store(true)
	}
	if len(res.Accepted)+len(res.Pending)+len(res.Rejected) != len(docs) {
		t.Errorf("bulk submit of %d on %s: %+v", len(docs), r.Name, res)
	}
	for _, rej := range res.Rejected {
		if rej.ErrorCode != client.CodeDocumentSubmitted {
			t.Errorf("bulk submit on %s rejected %s: %s %s", r.Name, rej.ID, rej.ErrorCode, rej.Message)
		}
	}
	return res
}

// postFault switches a fault of one replica's sandbox on.
func postFault(t *testing.T, r *servetest.Replica, f map[string]any) {
	t.Helper()
	body, _ := json.Marshal(f)
	resp, err := http.Post(r.URL+"/sandbox/sandbox/faults", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("sandbox fault on %s: %v", r.Name, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("sandbox fault %v on %s: HTTP %d", f, r.Name, resp.StatusCode)
	}
}

// authority429s returns the lines of a replica's metrics that count 429
// answers from the authority.
func authority429s(t *testing.T, r *servetest.Replica) []string {
	t.Helper()
	body := replicaGet(t, r, "/metrics")
	if !bytes.Contains(body, []byte("einvoice_authority_calls_total{")) {
		t.Fatalf("metrics of %s without einvoice_authority_calls_total:\n%s", r.Name, body)
	}
	var lines []string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "einvoice_authority_calls_total{") && strings.Contains(l, `code="429"`) {
			lines = append(lines, l)
		}
	}
	return lines
}

// replicaStats reads the sandbox's counts (from the shared database) through
// one replica.
func replicaStats(t *testing.T, r *servetest.Replica) e2etest.SandboxStats {
	t.Helper()
	var st e2etest.SandboxStats
	if body := replicaGet(t, r, "/sandbox/sandbox/stats"); json.Unmarshal(body, &st) != nil {
		t.Fatalf("sandbox stats on %s: %s", r.Name, body)
	}
	return st
}

// replicaGet reads a 200 answer of a replica, without authentication.
func replicaGet(t *testing.T, r *servetest.Replica, path string) []byte {
	t.Helper()
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(r.URL + path)
	if err != nil {
		t.Fatalf("GET %s on %s: %v", path, r.Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s on %s: %d %v", path, r.Name, resp.StatusCode, err)
	}
	return body
}
