package people_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// The tests of this package run the service on a real SQLite file, with a
// clock that moves only when a test moves it.

// password passes the password rules.
const password = "correct horse battery staple 42"

// cheap makes password hashes cheap in tests.
var cheap = people.Argon2Params{MemoryKiB: 1024, Iterations: 1, Parallelism: 1}

// clock is a test clock: it stands still until moved.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// message is one mailed notice.
type message struct {
	TenantID      string
	To            []string
	Subject, Body string
}

type harness struct {
	t     *testing.T
	svc   *people.Service
	store *sqlstore.Store
	clock *clock
	addrs atomic.Int64

	mu    sync.Mutex
	mails []message
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx := context.Background()
	box, err := secretbox.New(bytes.Repeat([]byte{9}, secretbox.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, migrated.SQLite(t), box)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx, nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	h := &harness{t: t, store: st, clock: &clock{now: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}}
	h.svc = people.New(people.Options{Store: st, MailConfigured: true, BaseURL: "https://dash.example/", Argon2: cheap, Now: h.clock.Now,
		NewID: func() string { return uuid.Must(uuid.NewV7()).String() },
		Notify: func(_ context.Context, tenantID string, to []string, subject, body string) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.mails = append(h.mails, message{tenantID, to, subject, body})
			return nil
		}})
	return h
}

// addr returns a client address not used before in the test, so that the
// per-address limiter is no test's subject but its own.
func (h *harness) addr() string { return fmt.Sprintf("203.0.113.%d", h.addrs.Add(1)) }

// tenant stores a new tenant of the name.
func (h *harness) tenant(name string) *einvoice.Tenant {
	h.t.Helper()
	p := einvoice.DemoProfile()
	p.Name = name
	now := h.clock.Now()
	tn := &einvoice.Tenant{ID: uuid.Must(uuid.NewV7()).String(), Profile: p, CreatedAt: now, UpdatedAt: now}
	if err := h.store.CreateTenant(context.Background(), tn); err != nil {
		h.t.Fatalf("CreateTenant: %v", err)
	}
	return tn
}

// member adds the e-mail to the tenant with the role (as `einvoice user
// add` does), sets its password by the link, and returns the user and the
// session the link opened.
func (h *harness) member(tenantID, email string, role einvoice.Role) (*einvoice.User, string) {
	h.t.Helper()
	ctx := context.Background()
	u, link, err := h.svc.AddUser(ctx, tenantID, email, "", role)
	if err != nil {
		h.t.Fatalf("AddUser(%s): %v", email, err)
	}
	res, err := h.svc.UseLink(ctx, secretOf(h.t, link), "", password, h.addr())
	if err != nil {
		h.t.Fatalf("UseLink(%s's setup link): %v", email, err)
	}
	return u, res.Token
}

// session returns the signed-in session of a token; a test failure when
// there is none.
func (h *harness) session(token string) *einvoice.SessionUser {
	h.t.Helper()
	su, err := h.svc.Session(context.Background(), token)
	if err != nil {
		h.t.Fatalf("Session: %v", err)
	}
	return su
}

// lastLink returns the link of the last message mailed to the e-mail.
func (h *harness) lastLink(email string) string {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.mails) - 1; i >= 0; i-- {
		m := h.mails[i]
		if len(m.To) == 1 && m.To[0] == email {
			for line := range strings.Lines(m.Body) {
				if line = strings.TrimSpace(line); strings.HasPrefix(line, "https://dash.example/app/link/") {
					return line
				}
			}
			h.t.Fatalf("the message to %s holds no link:\n%s", email, m.Body)
		}
	}
	h.t.Fatalf("no message to %s", email)
	return ""
}

func (h *harness) mailCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.mails)
}

// secretOf is the secret of a link's URL.
func secretOf(t *testing.T, url string) string {
	t.Helper()
	secret, ok := strings.CutPrefix(url, "https://dash.example/app/link/")
	if !ok || secret == "" {
		t.Fatalf("%q is not a link of the dashboard", url)
	}
	return secret
}

// wantCode fails the test when err is not a *einvoice.Error of the code.
func wantCode(t *testing.T, what string, err error, code einvoice.Code) {
	t.Helper()
	if got := einvoice.ErrorCode(err); got != code {
		t.Errorf("%s = %v (%s), want %s", what, err, got, code)
	}
}

// message is the message of a *einvoice.Error.
func messageOf(err error) string {
	var e *einvoice.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return ""
}
