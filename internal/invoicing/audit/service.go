package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Store is what the audit capability keeps.
type Store interface {
	einvoice.AuditStore
}

// Options are the dependencies and settings of a Service.
type Options struct {
	Store Store
	// Queue is how many entries may wait for the writer (4096); a record
	// that finds the queue full is appended at once, in its caller.
	Queue int
	// Linger is how long the writer waits, after an entry came, for others
	// to share its batch's transaction (20 ms): an append per request
	// would add a commit's wait to every change. A list (FlushAudit) cuts
	// the wait short.
	Linger time.Duration
	// Now is the clock (time.Now when nil).
	Now    func() time.Time
	Logger *slog.Logger
}

// Service is the audit capability. It is made once, by New, and not
// changed after.
type Service struct {
	store Store
	clock func() time.Time
	log   *slog.Logger

	// mu guards running: whether Run's writer takes the queue. Records
	// send under the read lock, never blocking; Run stops taking under
	// the write lock, then drains what was sent.
	mu      sync.RWMutex
	running bool
	queue   chan *einvoice.AuditEntry
	linger  time.Duration
	// flush asks the writer to write its batch now.
	flush chan struct{}
	// queued counts the entries sent to the queue, written those the
	// writer appended; tick is closed (and replaced) after each batch.
	queued  atomic.Int64
	pmu     sync.Mutex
	written int64
	tick    chan struct{}
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	if o.Linger <= 0 {
		o.Linger = 20 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: o.Store, clock: o.Now, log: o.Logger, queue: make(chan *einvoice.AuditEntry, o.Queue),
		linger: o.Linger, flush: make(chan struct{}, 1), tick: make(chan struct{})}
}

// RecordAudit records that a made the change e describes (its action,
// resource, outcome, status and detail): the actor's fields and tenant
// (unless e names one) are filled in, At is now when zero, and every text
// is made storable (valid UTF-8 without control characters, cut to the
// audit limits) before it is hashed. While Run runs, the entry is queued
// for its writer; otherwise (the CLI) it is appended at once. A failure is
// logged, never returned: the change it records was made.
func (s *Service) RecordAudit(ctx context.Context, a einvoice.Actor, e einvoice.AuditEntry) {
	ent := s.entry(a, e)
	s.mu.RLock()
	if s.running {
		select {
		case s.queue <- ent:
			s.queued.Add(1)
			s.mu.RUnlock()
			return
		default: // full: appended by its caller below
		}
	}
	s.mu.RUnlock()
	if err := s.store.AppendAudit(context.WithoutCancel(ctx), ent); err != nil {
		s.log.ErrorContext(ctx, "audit entry not recorded", "action", ent.Action, "resource_id", ent.ResourceID, "error", err)
	}
}

// entry is the entry a's change e makes, cleaned.
func (s *Service) entry(a einvoice.Actor, e einvoice.AuditEntry) *einvoice.AuditEntry {
	if e.TenantID == "" {
		e.TenantID = a.TenantID
	}
	if e.At.IsZero() {
		e.At = s.clock()
	}
	e.At = e.At.UTC().Truncate(time.Microsecond)
	e.ActorKind, e.ActorID, e.ActorName, e.ActorEmail = a.Kind, a.ID, a.Name, strings.ToLower(a.Email)
	e.Address, e.UserAgent = a.Address, a.UserAgent
	if e.Outcome == "" {
		e.Outcome = einvoice.AuditOK
	}
	for _, f := range []*string{&e.TenantID, &e.ActorID, &e.ActorName, &e.ActorEmail, &e.Address, &e.Action, &e.ResourceType, &e.ResourceID} {
		*f = clean(*f, einvoice.MaxAuditField)
	}
	e.UserAgent, e.Detail = clean(e.UserAgent, einvoice.MaxAuditAgent), clean(e.Detail, einvoice.MaxAuditDetail)
	e.Seq, e.PrevHash, e.Hash = 0, "", ""
	return &e
}

// clean makes s valid UTF-8 without control characters (PostgreSQL refuses
// NUL; a log line must stay one line), at most n bytes.
func clean(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsFunc(s, unicode.IsControl) {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, s)
	}
	return einvoice.Truncate(s, n)
}

// maxBatch bounds the entries of one append.
const maxBatch = 256

// Run is the writer: it appends queued entries in batches until ctx ends,
// then stops taking the queue and appends what is left in it. An append
// that fails is tried again (the entries kept) with a growing pause.
func (s *Service) Run(ctx context.Context) {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	batch := make([]*einvoice.AuditEntry, 0, maxBatch)
	for {
		select {
		case e := <-s.queue:
			batch = s.gather(ctx, append(batch[:0], e))
			s.write(ctx, batch)
		case <-ctx.Done():
			s.mu.Lock()
			s.running = false
			s.mu.Unlock()
			for len(s.queue) > 0 {
				s.write(ctx, s.fill(batch[:0]))
			}
			s.advance(0) // wake flushes: no writer runs now
			return
		}
	}
}

// gather adds to batch the entries that come within the linger, up to
// maxBatch; a flush or the end of ctx cuts the wait short.
func (s *Service) gather(ctx context.Context, batch []*einvoice.AuditEntry) []*einvoice.AuditEntry {
	timer := time.NewTimer(s.linger)
	defer timer.Stop()
	for len(batch) < maxBatch {
		select {
		case e := <-s.queue:
			batch = append(batch, e)
		case <-s.flush:
			return s.fill(batch)
		case <-timer.C:
			return s.fill(batch)
		case <-ctx.Done():
			return s.fill(batch)
		}
	}
	return batch
}

// fill adds to batch the entries queued meanwhile, up to maxBatch.
func (s *Service) fill(batch []*einvoice.AuditEntry) []*einvoice.AuditEntry {
	for len(batch) < maxBatch {
		select {
		case e := <-s.queue:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// write appends a batch, trying again while it fails; once ctx ended it
// tries a last time, then logs the entries lost.
func (s *Service) write(ctx context.Context, batch []*einvoice.AuditEntry) {
	pause := 100 * time.Millisecond
	for {
		err := s.store.AppendAudit(context.WithoutCancel(ctx), batch...)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			s.log.Error("audit entries lost: the database refused them while stopping", "count", len(batch), "error", err)
			break
		}
		s.log.Warn("audit entries not appended yet; trying again", "count", len(batch), "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 10*time.Second)
	}
	s.advance(int64(len(batch)))
}

// advance counts n entries written and wakes the flushes waiting.
func (s *Service) advance(n int64) {
	s.pmu.Lock()
	s.written += n
	close(s.tick)
	s.tick = make(chan struct{})
	s.pmu.Unlock()
}

// FlushAudit waits until every entry queued before the call was appended
// (or ctx ends): a list that follows shows what this process recorded.
func (s *Service) FlushAudit(ctx context.Context) error {
	target := s.queued.Load()
	for {
		select {
		case s.flush <- struct{}{}:
		default: // asked already
		}
		s.mu.RLock()
		running := s.running
		s.mu.RUnlock()
		s.pmu.Lock()
		written, tick := s.written, s.tick
		s.pmu.Unlock()
		if written >= target || (!running && len(s.queue) == 0) {
			return nil
		}
		select {
		case <-tick:
		case <-ctx.Done():
			return fmt.Errorf("flush the audit log: %w", ctx.Err())
		}
	}
}

// ListAudit returns one page of a tenant's audit log, after this
// process's queued entries were appended.
func (s *Service) ListAudit(ctx context.Context, tenantID string, f einvoice.AuditFilter) (einvoice.Page[*einvoice.AuditEntry], error) {
	if err := s.FlushAudit(ctx); err != nil {
		return einvoice.Page[*einvoice.AuditEntry]{}, err
	}
	page, err := s.store.ListAudit(ctx, tenantID, f)
	if err != nil {
		return page, fmt.Errorf("list the audit log: %w", err)
	}
	return page, nil
}

// Verification is the outcome of VerifyAudit.
type Verification struct {
	// Entries is how many entries were found intact, from the first.
	Entries int64
	// HeadHash is the hash of the last entry (the chain's head).
	HeadHash string
	// Broken is the first entry found broken; nil when the chain is whole.
	Broken *einvoice.AuditBreak
}

// VerifyAudit checks the whole chain, by seq, up to the head as it was
// when the check began: the first entry missing (a seq gap, or the last
// ones removed), reordered, or altered (its hash, or the next one's
// previous hash) is Broken.
func (s *Service) VerifyAudit(ctx context.Context) (*Verification, error) {
	seq, hash, err := s.store.AuditHead(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify the audit log: %w", err)
	}
	v := &Verification{HeadHash: hash}
	var c einvoice.AuditChecker
	err = s.store.WalkAudit(ctx, seq, func(e *einvoice.AuditEntry) error {
		if b := c.Check(e); b != nil {
			return b
		}
		return nil
	})
	v.Entries = c.Count
	if errors.As(err, &v.Broken) {
		return v, nil
	}
	if err != nil {
		return nil, fmt.Errorf("verify the audit log: %w", err)
	}
	v.Broken = c.Finish(seq, hash)
	return v, nil
}
