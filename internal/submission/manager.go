// Package submission takes documents to the tax authority exactly once and
// follows them to their verdict (DECISIONS sections 5 and 9).
//
// A submit commits the intent first: in one transaction the document moves
// from ready to submitting, its UBL and frozen parties are stored, and its
// job is written to the outbox (submission_jobs) with a lease held by the
// request. The request then calls the authority at once, within a bounded
// wait. Before every send the job is marked maybe-sent; once the answer is
// known it is cleared. Workers (several per process, several processes on
// PostgreSQL) take only jobs whose lease has expired: a job whose request
// gave up, crashed or timed out. Maybe-sent jobs are settled in a loop of
// their own (settle.go), all of a tenant's with one search that reads every
// submission since they may have been sent; a document is sent again only
// when that search was complete and did not find it, so a document is never
// sent twice (and a DS302 duplicate, should one happen, is settled to its
// original: duplicate.go). Accepted documents become poll
// jobs, which follow them to Valid or Invalid; a worker polling a submission
// takes all its pending poll jobs along, so one Get Submission (limited to
// 300 a minute by the authority) settles all its documents. Jobs are never deleted: their
// attempts, next attempt and last error stay visible on the document.
package submission

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The authority's hosts (reference myinvois.md 1.1).
const (
	PreprodAPI       = "https://preprod-api.myinvois.hasil.gov.my"
	PreprodPortal    = "https://preprod.myinvois.hasil.gov.my"
	ProductionAPI    = "https://api.myinvois.hasil.gov.my"
	ProductionPortal = "https://myinvois.hasil.gov.my"
)

// Options configure a Manager.
type Options struct {
	Store     einvoice.Store
	Authority einvoice.AuthorityAPI
	// SandboxAPI and SandboxPortal are where the sandbox environment is: the
	// built-in sandbox, or any MyInvois-compatible service.
	SandboxAPI    string
	SandboxPortal string
	Now           func() time.Time
	NewID         func() string
	Logger        *slog.Logger
	// Wait bounds how long a submit request waits for the authority (10 s).
	Wait time.Duration
	// Lease is how long a claimed job is held before another worker may take
	// it over (60 s); it must exceed Wait.
	Lease time.Duration
	// Workers is the number of workers Run starts (2).
	Workers int
	// Idle is how long an idle worker waits before looking for work (1 s).
	Idle time.Duration
	// PollAfter is how long after acceptance a document's status is first
	// asked (3 s, the authority's advice); it grows to a minute.
	PollAfter time.Duration
}

// Manager runs the submission lifecycle.
type Manager struct {
	o       Options
	log     *slog.Logger
	signers sync.Map // tenant id -> *signerEntry
}

// New returns a Manager with defaults filled in.
func New(o Options) *Manager {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Wait <= 0 {
		o.Wait = 10 * time.Second
	}
	if o.Lease <= o.Wait {
		o.Lease = 6 * o.Wait
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Idle <= 0 {
		o.Idle = time.Second
	}
	if o.PollAfter <= 0 {
		o.PollAfter = 3 * time.Second
	}
	return &Manager{o: o, log: o.Logger}
}

func (m *Manager) now() time.Time { return m.o.Now().UTC().Truncate(time.Microsecond) }

// Endpoint returns the API and portal base URLs of an environment.
func (m *Manager) Endpoint(env string) (api, portal string, err error) {
	switch env {
	case einvoice.EnvSandbox, "":
		return strings.TrimRight(m.o.SandboxAPI, "/"), strings.TrimRight(m.o.SandboxPortal, "/"), nil
	case einvoice.EnvPreprod:
		return PreprodAPI, PreprodPortal, nil
	case einvoice.EnvProduction:
		return ProductionAPI, ProductionPortal, nil
	}
	return "", "", fmt.Errorf("unknown authority environment %q", env)
}

// ValidationURL is the authority's public link of a Valid document, or "".
func (m *Manager) ValidationURL(t *einvoice.Tenant, d *einvoice.Document) string {
	if d.Authority == nil || d.Authority.DocumentUUID == "" || d.Authority.LongID == "" {
		return ""
	}
	_, portal, err := m.Endpoint(t.Authority.Environment)
	if err != nil {
		return ""
	}
	return portal + "/" + d.Authority.DocumentUUID + "/share/" + d.Authority.LongID
}

// credentials are the tenant's login at its environment.
func (m *Manager) credentials(t *einvoice.Tenant) (einvoice.Credentials, error) {
	api, _, err := m.Endpoint(t.Authority.Environment)
	if err != nil {
		return einvoice.Credentials{}, err
	}
	if api == "" {
		return einvoice.Credentials{}, fmt.Errorf("no authority URL configured for environment %q", t.Authority.Environment)
	}
	c := einvoice.Credentials{BaseURL: api, ClientID: t.Authority.ClientID, ClientSecret: t.Authority.ClientSecret}
	if t.Authority.Mode == einvoice.ModeIntermediary {
		c.OnBehalfOf = t.Authority.OnBehalfOf
		if c.OnBehalfOf == "" {
			c.OnBehalfOf = t.Profile.TIN
		}
	}
	return c, nil
}

// tenant reads a tenant.
func (m *Manager) tenant(ctx context.Context, id string) (*einvoice.Tenant, error) {
	t, err := m.o.Store.GetTenant(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("tenant %s: %w", id, err)
	}
	return t, nil
}

// document reads a document of the tenant: DOCUMENT_NOT_FOUND when absent.
func (m *Manager) document(ctx context.Context, tenantID, id string) (*einvoice.Document, error) {
	d, err := m.o.Store.GetDocument(ctx, tenantID, id)
	if err == einvoice.ErrNotFound {
		return nil, einvoice.Errorf(einvoice.CodeDocumentNotFound, "No document with id %q.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get document: %w", err)
	}
	return d, nil
}
