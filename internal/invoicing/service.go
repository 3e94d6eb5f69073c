package invoicing

import (
	"context"
	"crypto/x509"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/access"
	"github.com/einvoice/einvoice/internal/invoicing/audit"
	"github.com/einvoice/einvoice/internal/invoicing/mail"
	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/invoicing/received"
	"github.com/einvoice/einvoice/internal/invoicing/webhooks"
)

// The authority's hosts (reference myinvois.md 1.1).
const (
	PreprodAPI       = "https://preprod-api.myinvois.hasil.gov.my"
	PreprodPortal    = "https://preprod.myinvois.hasil.gov.my"
	ProductionAPI    = "https://api.myinvois.hasil.gov.my"
	ProductionPortal = "https://myinvois.hasil.gov.my"
)

// Options are the dependencies and settings of a Service.
type Options struct {
	// Store keeps tenants, keys, parties, documents and the outbox.
	Store einvoice.Store
	// Authority is the tax authority's API. When nil, the service checks no
	// TINs and cannot submit: what the administration commands need.
	Authority einvoice.AuthorityAPI
	// SandboxAPI and SandboxPortal are where the sandbox environment is: the
	// built-in sandbox, or any MyInvois-compatible service.
	SandboxAPI    string
	SandboxPortal string
	// SandboxTrust, when not nil, tells whether a signing certificate
	// chains to an authority the sandbox environment trusts (the built-in
	// sandbox's CheckChain): the go-live check reports the sandbox's DS329
	// before a document meets it.
	SandboxTrust func(ctx context.Context, cert *x509.Certificate) error
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID makes a new sortable id (UUID v7).
	NewID  func() string
	Logger *slog.Logger
	// KeyCacheTTL, when positive, keeps authenticated keys in memory that
	// long, so that most requests cost no key lookup. A revoked key then
	// keeps working for at most that long.
	KeyCacheTTL time.Duration
	// Wait bounds how long a submit request waits for the authority (10 s).
	Wait time.Duration
	// Lease is how long a claimed job is held before another worker may take
	// it over (60 s); it must exceed Wait.
	Lease time.Duration
	// Workers is the number of submission workers Run starts: each sends,
	// polls for verdicts and settles unknown outcomes. None when 0: the
	// service then sends only within submit requests, and Run's other
	// loops (webhooks, received documents, consolidations, housekeeping)
	// run all the same.
	Workers int
	// Idle is how long an idle worker waits before looking for work (1 s).
	Idle time.Duration
	// PollAfter is how long after acceptance a document's status is first
	// asked (3 s, the authority's advice); it grows to a minute.
	PollAfter time.Duration
	// Webhooks delivers webhook requests; when nil, events are recorded and
	// queued but Run delivers none.
	Webhooks einvoice.WebhookSender
	// WebhookAllowPrivate lets webhook URLs name loopback and private
	// addresses (tests, private networks).
	WebhookAllowPrivate bool
	// DeliveryWorkers is the number of webhook delivery workers Run starts (4).
	DeliveryWorkers int
	// RetryBase is the first retry delay of a failed delivery (5 s, with
	// jitter); it doubles per attempt up to an hour.
	RetryBase time.Duration
	// ReceivedInterval is how often each tenant's received documents are
	// looked for (a minute; DECISIONS 16).
	ReceivedInterval time.Duration
	// PublicURL is the service's public base URL (absolute, no trailing
	// slash): receipts' request pages are under it, at /r/{token}
	// (DECISIONS 17). http://127.0.0.1 when empty.
	PublicURL string
	// AutoConsolidate runs the consolidation of the previous month for
	// each tenant from the 3rd of the month (Malaysian time), once per
	// month and tenant on any replica (DECISIONS 17).
	AutoConsolidate bool
	// ConsolidateWait bounds how long POST /consolidations waits for the
	// consolidation before answering it running (45 s, within the HTTP
	// write timeout); the work goes on.
	ConsolidateWait time.Duration
	// ScheduleInterval is how often the consolidation scheduler looks (a
	// minute).
	ScheduleInterval time.Duration
	// OnDelivery, when set, is told the outcome of every delivery attempt
	// (delivered, failed, gave_up) and its duration.
	OnDelivery func(outcome string, d time.Duration)
	// Mail sends the mail outbox through the operator's mail server; when
	// nil, messages are kept in the service's mailbox (DECISIONS 21).
	Mail einvoice.MailSender
	// MailWorkers is the number of mail sending workers (1); MailRetryBase
	// the first retry delay of a temporary failure (30 s).
	MailWorkers   int
	MailRetryBase time.Duration
	// Argon2 is the cost of a password hash (people.DefaultArgon2 when
	// zero; lower it only for tests).
	Argon2 people.Argon2Params
	// OwnerEmail is the e-mail of the demo tenant's owner, made on the
	// first start ("owner@example.com").
	OwnerEmail string
}

// Service is the application: every use case of the API (tenants and keys,
// parties, documents, validate, submit, bulk, status, cancel, the QR code
// and the PDF, receipts, received documents, webhooks and events) and the
// loops that take documents to the authority and follow them there,
// deliver webhooks, poll received documents and purge. The capabilities'
// services are embedded: their methods are the Service's. It is made once,
// by New, and not changed after.
type Service struct {
	// The capabilities, whose methods are the Service's.
	*webhookService
	*receivedService
	*accessService
	*mailService
	*peopleService
	*auditService

	store         einvoice.Store
	authority     einvoice.AuthorityAPI
	sandboxAPI    string
	sandboxPortal string
	sandboxTrust  func(ctx context.Context, cert *x509.Certificate) error
	clock         func() time.Time
	newID         func() string
	log           *slog.Logger
	wait          time.Duration
	lease         time.Duration
	workers       int
	idle          time.Duration
	pollAfter     time.Duration
	// publicURL is the base of receipts' request URLs and people's links.
	publicURL string
	// ownerEmail is the first start's owner.
	ownerEmail string
	// autoConsolidate and scheduleInterval drive the consolidation
	// scheduler.
	autoConsolidate  bool
	consolidateWait  time.Duration
	scheduleInterval time.Duration

	// bulkSlots bounds the bulk submits this process builds at once
	// (bulk.go).
	bulkSlots chan struct{}
	signers   sync.Map // tenant id -> *signerEntry

	// submitStreak counts this process's submit calls that the authority
	// failed in a row (reset by any success): the retry backoff grows with
	// it, so that an authority that is down is left alone while one that
	// fails now and then sees an unlucky document again within seconds.
	submitStreak atomic.Int64
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
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
	o.Workers = max(o.Workers, 0)
	if o.Idle <= 0 {
		o.Idle = time.Second
	}
	if o.PollAfter <= 0 {
		o.PollAfter = 3 * time.Second
	}
	if o.ReceivedInterval <= 0 {
		o.ReceivedInterval = time.Minute
	}
	if o.ConsolidateWait <= 0 {
		o.ConsolidateWait = 45 * time.Second
	}
	if o.ScheduleInterval <= 0 {
		o.ScheduleInterval = time.Minute
	}
	if o.PublicURL == "" {
		o.PublicURL = "http://127.0.0.1"
	}
	hooks := webhooks.New(webhooks.Options{Store: o.Store, Sender: o.Webhooks, AllowPrivate: o.WebhookAllowPrivate,
		Workers: o.DeliveryWorkers, RetryBase: o.RetryBase, OnDelivery: o.OnDelivery, Now: o.Now, NewID: o.NewID, Logger: o.Logger})
	s := &Service{webhookService: hooks,
		accessService:   access.New(access.Options{Store: o.Store, KeyCacheTTL: o.KeyCacheTTL, Now: o.Now, NewID: o.NewID, Logger: o.Logger}),
		autoConsolidate: o.AutoConsolidate, consolidateWait: o.ConsolidateWait, scheduleInterval: o.ScheduleInterval, publicURL: strings.TrimRight(o.PublicURL, "/"), store: o.Store, authority: o.Authority, sandboxAPI: o.SandboxAPI, sandboxPortal: o.SandboxPortal,
		sandboxTrust: o.SandboxTrust, clock: o.Now, newID: o.NewID, log: o.Logger,
		wait: o.Wait, lease: o.Lease, workers: o.Workers, idle: o.Idle, pollAfter: o.PollAfter,
		bulkSlots: make(chan struct{}, bulkAtOnce)}
	api, _ := o.Authority.(einvoice.ReceivedAPI)
	s.mailService = mail.New(mail.Options{Store: o.Store, Sender: o.Mail, Document: s.mailDocumentOf, PDF: s.mailPDF, Notify: s.Wake,
		Workers: o.MailWorkers, RetryBase: o.MailRetryBase, Lease: o.Lease, Idle: o.Idle, Now: o.Now, NewID: o.NewID, Logger: o.Logger})
	s.peopleService = people.New(people.Options{Store: o.Store, Notify: s.notice, MailConfigured: o.Mail != nil,
		BaseURL: s.publicURL, Argon2: o.Argon2, Now: o.Now, NewID: o.NewID, Logger: o.Logger})
	s.ownerEmail = o.OwnerEmail
	if s.ownerEmail == "" {
		s.ownerEmail = "owner@example.com"
	}
	s.auditService = audit.New(audit.Options{Store: o.Store, Now: o.Now, Logger: o.Logger})
	s.receivedService = received.New(received.Options{Store: o.Store, Authority: api, Credentials: s.credentials, Notify: s.Wake,
		Interval: o.ReceivedInterval, Wait: o.Wait, Lease: o.Lease, Idle: o.Idle, Now: o.Now, NewID: o.NewID, Logger: o.Logger})
	return s
}

func (s *Service) now() time.Time { return s.clock().UTC().Truncate(time.Microsecond) }

// The capability services the Service embeds, by names of their own.
type (
	webhookService  = webhooks.Service
	receivedService = received.Service
	mailService     = mail.Service
	accessService   = access.Service
	peopleService   = people.Service
	auditService    = audit.Service
)

// AuditVerification is the outcome of VerifyAudit.
type AuditVerification = audit.Verification

// The capabilities' types the adapters name.
type (
	// WebhookInput is what a create or update of a webhook gives.
	WebhookInput = webhooks.Input
	// ReceivedDocumentView is a received document as the API shows it.
	ReceivedDocumentView = received.View
	// ReceivedParty is the issuer or receiver of a received document.
	ReceivedParty = received.Party
	// ReceivedTotals are a received document's totals.
	ReceivedTotals = received.Totals
)

// IdempotencyHeader is the request header that carries an idempotency key.
const IdempotencyHeader = access.IdempotencyHeader

// CheckIdempotencyKey refuses a key that is empty, longer than 255
// characters or not printable ASCII: a 422 naming the header.
func CheckIdempotencyKey(key string) error { return access.CheckIdempotencyKey(key) }

// KeepsResponse reports whether a response of this status is kept under
// its idempotency key.
func KeepsResponse(status int) bool { return access.KeepsResponse(status) }

// ReceivedStatuses are the statuses the received list filters by.
var ReceivedStatuses = received.Statuses

// Submits reports whether the service has a tax authority to submit to
// (the administration commands' service has none).
func (s *Service) Submits() bool { return s.authority != nil }

// Ping reports whether the database answers.
func (s *Service) Ping(ctx context.Context) error {
	if err := s.store.Ping(ctx); err != nil {
		return fmt.Errorf("ping the database: %w", err)
	}
	return nil
}

// Endpoint returns the API and portal base URLs of an environment.
func (s *Service) Endpoint(env string) (api, portal string, err error) {
	switch env {
	case einvoice.EnvSandbox, "":
		return strings.TrimRight(s.sandboxAPI, "/"), strings.TrimRight(s.sandboxPortal, "/"), nil
	case einvoice.EnvPreprod:
		return PreprodAPI, PreprodPortal, nil
	case einvoice.EnvProduction:
		return ProductionAPI, ProductionPortal, nil
	}
	return "", "", fmt.Errorf("unknown authority environment %q", env)
}

// ValidationURL is the authority's public link of a Valid document, or "".
func (s *Service) ValidationURL(t *einvoice.Tenant, d *einvoice.Document) string {
	if d.Authority == nil || d.Authority.DocumentUUID == "" || d.Authority.LongID == "" {
		return ""
	}
	_, portal, err := s.Endpoint(t.Authority.Environment)
	if err != nil {
		return ""
	}
	return portal + "/" + d.Authority.DocumentUUID + "/share/" + d.Authority.LongID
}

// credentials are the tenant's login at its environment.
func (s *Service) credentials(t *einvoice.Tenant) (einvoice.Credentials, error) {
	api, _, err := s.Endpoint(t.Authority.Environment)
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
func (s *Service) tenant(ctx context.Context, id string) (*einvoice.Tenant, error) {
	t, err := s.store.GetTenant(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("tenant %s: %w", id, err)
	}
	return t, nil
}

// tenantDocument reads a document of the tenant (DOCUMENT_NOT_FOUND when
// absent) and the tenant.
func (s *Service) tenantDocument(ctx context.Context, tenantID, id string) (*einvoice.Tenant, *einvoice.Document, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, nil, err
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, nil, err
	}
	return t, d, nil
}
