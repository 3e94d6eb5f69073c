package mail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/retry"
)

// mailBatch is how many messages a worker claims at once (and sends
// concurrently: one connection each). Each renders its PDF (about 9 ms of
// CPU): few at a time, so that mail trails the lifecycle rather than
// competing with it (BenchmarkMail: 1,000 mailed in about 15 s).
const mailBatch = 4

// maxRetryDelay bounds the wait between two attempts of a message.
const maxRetryDelay = time.Hour

// Run runs the sending workers until ctx ends and they have finished the
// messages in hand. Without a mail server it does nothing: messages are
// kept.
func (s *Service) Run(ctx context.Context) {
	if s.sender == nil {
		return
	}
	var wg sync.WaitGroup
	for range s.workers {
		wg.Go(func() { s.sendLoop(ctx) })
	}
	wg.Wait()
}

func (s *Service) sendLoop(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := s.SendOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "mail outbox", "error", err)
		}
		if n == mailBatch {
			s.WakeMail()
			continue
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-time.After(retry.Around(s.idle).Delay(1)):
		}
	}
}

// SendOnce claims due messages (up to a batch), sends them at once and
// records each outcome. It returns how many it took.
func (s *Service) SendOnce(ctx context.Context) (int, error) {
	if s.sender == nil {
		return 0, nil
	}
	owner := "mail:" + s.newID()
	now := s.now()
	ms, err := s.store.ClaimMail(ctx, owner, now, now.Add(s.lease), mailBatch)
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() { s.send(ctx, owner, m) })
	}
	wg.Wait()
	return len(ms), nil
}

// send makes one attempt of m and records it. A message found in flight
// was maybe taken by the server when its worker stopped: it is recorded
// sent, unconfirmed, and never sent again.
func (s *Service) send(ctx context.Context, owner string, m *einvoice.MailMessage) {
	ctx = context.WithoutCancel(ctx) // a message begun is finished and recorded
	if m.InFlight {
		at := s.now()
		m.State, m.Unconfirmed, m.SentAt, m.UpdatedAt = einvoice.MailSent, true, &at, at
		m.LastError = "the service stopped while the mail server was taking this message: it was not sent again, to never send it twice (send it again if the recipient did not receive it)"
		s.record(ctx, owner, m)
		return
	}
	out := &einvoice.OutgoingMail{ID: m.ID, FromName: m.FromName, ReplyTo: m.ReplyTo, To: m.To, Bcc: m.Bcc, Subject: m.Subject, Body: m.Body}
	var err error
	if m.AttachPDF {
		var a einvoice.MailAttachment
		if a, err = s.pdf(ctx, m.TenantID, m.DocumentID); err == nil {
			out.Attachments = []einvoice.MailAttachment{a}
		} else {
			err = fmt.Errorf("render the PDF: %w", err)
		}
	}
	committed := false
	if err == nil {
		err = s.sender.Send(ctx, out, func() error {
			if err := s.store.MarkMailInFlight(ctx, owner, m.ID, s.now()); err != nil {
				return err
			}
			committed = true
			return nil
		})
	}
	at := s.now()
	m.Attempts++
	m.UpdatedAt = at
	var refused *einvoice.MailSendError
	answered := errors.As(err, &refused) && refused.Code != 0
	switch {
	case err == nil:
		m.State, m.SentAt, m.LastError = einvoice.MailSent, &at, ""
	case committed && !answered && errors.Is(err, os.ErrDeadlineExceeded):
		// The end of the data went out and its answer did not come in
		// time: the server may still take the message (RFC 1047). Never
		// sent twice. (A connection closed without an answer is tried
		// again: a server takes a message only by answering 250, RFC 5321
		// section 6.1; so is a worker killed before the in-flight mark.)
		m.State, m.Unconfirmed, m.SentAt = einvoice.MailSent, true, &at
		m.LastError = einvoice.Truncate("the mail server did not answer the end of the message in time ("+err.Error()+
			"): it was not sent again, to never send it twice (send it again if the recipient did not receive it)", 500)
	case errors.Is(err, einvoice.ErrWrongState):
		return // the lease was lost before the end of the data: another worker has it
	case errors.As(err, &refused) && !refused.Temporary:
		m.State, m.LastError = einvoice.MailFailed, einvoice.Truncate(err.Error(), 500)
	default:
		m.LastError = einvoice.Truncate(err.Error(), 500)
		m.NextAttemptAt = at.Add(s.retryDelay(m.Attempts))
		if m.NextAttemptAt.After(m.CreatedAt.Add(einvoice.MailRetryFor)) {
			m.State, m.LastError = einvoice.MailFailed, einvoice.Truncate("still failing after 3 days: "+err.Error(), 500)
		}
	}
	m.InFlight = false
	s.record(ctx, owner, m)
}

// record writes m's outcome with the document's event, if any.
func (s *Service) record(ctx context.Context, owner string, m *einvoice.MailMessage) {
	r := einvoice.MailResult{Message: m}
	if m.Kind == einvoice.MailDocument && (m.State == einvoice.MailSent || m.State == einvoice.MailFailed) {
		typ := einvoice.EventDocumentDelivered
		if m.State == einvoice.MailFailed {
			typ = einvoice.EventDocumentDeliveryFailed
		}
		data := struct {
			DocumentID    string                     `json:"documentId"`
			EmailDelivery *einvoice.DocumentDelivery `json:"emailDelivery"`
		}{m.DocumentID, m.Delivery()}
		if e, err := einvoice.NewAPIEvent(s.newID(), m.TenantID, typ, m.DocumentID, m.UpdatedAt, data); err == nil {
			r.Notify = append(r.Notify, e)
		}
	}
	if err := s.store.RecordMail(ctx, owner, r); err != nil {
		s.log.WarnContext(ctx, "mail outcome not recorded", "mail_id", m.ID, "error", err)
		return
	}
	if len(r.Notify) > 0 {
		s.notify()
	}
	switch m.State {
	case einvoice.MailSent:
		s.log.InfoContext(ctx, "mail sent", "mail_id", m.ID, "document_id", m.DocumentID, "recipients", len(m.To)+len(m.Bcc))
	case einvoice.MailFailed:
		s.log.WarnContext(ctx, "mail failed", "mail_id", m.ID, "document_id", m.DocumentID, "error", m.LastError)
	default:
		s.log.InfoContext(ctx, "mail to be tried again", "mail_id", m.ID, "at", m.NextAttemptAt, "error", m.LastError)
	}
}

// retryDelay is the wait before attempt n+1 after n failed: RetryBase
// doubled per attempt up to an hour, with jitter.
func (s *Service) retryDelay(n int) time.Duration {
	return retry.Policy{Base: s.retryBase, Max: maxRetryDelay, Jitter: retry.EqualJitter}.Delay(n)
}
