package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var _ einvoice.SubmissionStore = (*Store)(nil)

const jobColumns = `id, tenant_id, document_id, kind, state, attempts, maybe_sent, next_attempt_at, lease_owner, lease_until,
	last_error, submission_uid, created_at, updated_at, settle_after`

func jobArgs(j *einvoice.Job) []any {
	return []any{j.ID, j.TenantID, j.DocumentID, string(j.Kind), string(j.State), j.Attempts, j.MaybeSent,
		micros(j.NextAttemptAt), j.LeaseOwner, micros(j.LeaseUntil), j.LastError, j.SubmissionUID, micros(j.CreatedAt), micros(j.UpdatedAt),
		zeroMicros(j.SettleAfter)}
}

// zeroMicros is micros, with 0 for the zero time.
func zeroMicros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return micros(t)
}

func scanJob(row interface{ Scan(...any) error }) (*einvoice.Job, error) {
	var j einvoice.Job
	var kind, state string
	var next, lease, created, updated, settle int64
	err := row.Scan(&j.ID, &j.TenantID, &j.DocumentID, &kind, &state, &j.Attempts, &j.MaybeSent, &next, &j.LeaseOwner, &lease,
		&j.LastError, &j.SubmissionUID, &created, &updated, &settle)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("scan job: %w", err)
	}
	j.Kind, j.State = einvoice.JobKind(kind), einvoice.JobState(state)
	j.NextAttemptAt, j.LeaseUntil, j.CreatedAt, j.UpdatedAt = fromMicros(next), fromMicros(lease), fromMicros(created), fromMicros(updated)
	if settle > 0 {
		j.SettleAfter = fromMicros(settle)
	}
	return &j, nil
}

// WriteSubmission applies one step of the submission lifecycle atomically.
func (s *Store) WriteSubmission(ctx context.Context, w einvoice.SubmissionWrite) error {
	var docArgs []any
	if w.Doc != nil {
		var err error
		if docArgs, err = documentArgs(w.Doc); err != nil {
			return err
		}
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if w.Doc != nil {
			if err := s.writeDocumentIn(ctx, tx, w.Doc, w.From, w.Version, docArgs); err != nil {
				return err
			}
		}
		if w.UBL != nil && w.Doc != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO document_ubl (document_id, tenant_id, body, created_at) VALUES ($1,$2,$3,$4)
				ON CONFLICT (document_id) DO UPDATE SET body = excluded.body, created_at = excluded.created_at`,
				w.Doc.ID, w.Doc.TenantID, w.UBL, micros(w.Doc.UpdatedAt)); err != nil {
				return fmt.Errorf("store ubl: %w", err)
			}
		}
		for _, j := range w.Jobs {
			if err := writeJob(ctx, tx, j, w.Lease); err != nil {
				return err
			}
		}
		for _, m := range w.Mail {
			if err := insertMail(ctx, tx, m); err != nil {
				return err
			}
		}
		for _, e := range w.Notify {
			if _, err := s.insertAPIEvent(ctx, tx, e, ""); err != nil {
				return err
			}
		}
		if w.Event != nil && w.Doc != nil {
			return insertEvent(ctx, tx, w.Doc.ID, *w.Event)
		}
		return nil
	})
}

// writeDocumentIn replaces the document if its stored status is in from,
// keeping the counts.
func (s *Store) writeDocumentIn(ctx context.Context, tx *sql.Tx, d *einvoice.Document, from []einvoice.Status, version time.Time, args []any) error {
	kind, status, err := s.lockDocument(ctx, tx, d.TenantID, d.ID)
	if err != nil {
		return err
	}
	if !slices.Contains(from, status) {
		return einvoice.ErrWrongState
	}
	// The issue date follows the body: recording a submission sets the
	// issue time written into the UBL (Authority.IssuedAt).
	q := `UPDATE documents SET status=$3, body=$4, updated_at=$5, issue_date=$6, body_current=1 WHERE id=$1 AND tenant_id=$2`
	a := []any{d.ID, d.TenantID, string(d.Status), args[docBodyArg], micros(d.UpdatedAt), args[docIssueDateArg]}
	if !version.IsZero() {
		q += ` AND updated_at=$7`
		a = append(a, micros(version))
	}
	res, err := tx.ExecContext(ctx, q, a...)
	if err != nil {
		return fmt.Errorf("write document: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return einvoice.ErrWrongState // changed since version
	}
	return moveCount(ctx, tx, d.TenantID, kind, status, d.Status)
}

// writeJob inserts j, or updates it; with a lease, only while the lease is
// still owned (another process may have taken the job over).
func writeJob(ctx context.Context, tx *sql.Tx, j *einvoice.Job, lease string) error {
	a := jobArgs(j)
	if lease == "" {
		_, err := tx.ExecContext(ctx, `INSERT INTO submission_jobs (`+jobColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)
			ON CONFLICT (document_id) DO UPDATE SET kind=excluded.kind, state=excluded.state, attempts=excluded.attempts,
			maybe_sent=excluded.maybe_sent, next_attempt_at=excluded.next_attempt_at, lease_owner=excluded.lease_owner,
			lease_until=excluded.lease_until, last_error=excluded.last_error, submission_uid=excluded.submission_uid,
			created_at=excluded.created_at, updated_at=excluded.updated_at, settle_after=excluded.settle_after`, a...)
		if err != nil {
			return fmt.Errorf("write job: %w", classify(err))
		}
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE submission_jobs SET kind=$3, state=$4, attempts=$5, maybe_sent=$6, next_attempt_at=$7,
		lease_owner=$8, lease_until=$9, last_error=$10, submission_uid=$11, updated_at=$12, settle_after=$14
		WHERE tenant_id=$1 AND document_id=$2 AND lease_owner=$13`, append(a[1:12:12], a[13], lease, a[14])...)
	if err != nil {
		return fmt.Errorf("update job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("job %s: lease lost: %w", j.ID, einvoice.ErrWrongState)
	}
	return nil
}

// ClaimJobs leases due jobs whose lease has expired, but for the submit jobs
// whose outcome is unknown (ClaimUnknown's). PostgreSQL skips rows other
// processes are claiming; SQLite's single writer serialises claims.
func (s *Store) ClaimJobs(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*einvoice.Job, error) {
	return s.claimDue(ctx, owner, now, leaseUntil, limit, `NOT (kind = 'submit' AND maybe_sent)`)
}

// ClaimPolls leases up to limit due poll jobs whose lease has expired to
// owner until leaseUntil, oldest due first.
func (s *Store) ClaimPolls(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*einvoice.Job, error) {
	return s.claimDue(ctx, owner, now, leaseUntil, limit, `kind = 'poll'`)
}

// claimDue leases the due pending jobs that also match which.
func (s *Store) claimDue(ctx context.Context, owner string, now, leaseUntil time.Time, limit int, which string) ([]*einvoice.Job, error) {
	pick := `SELECT id FROM submission_jobs WHERE state = 'pending' AND next_attempt_at <= $3 AND lease_until <= $3
		AND ` + which + ` ORDER BY next_attempt_at LIMIT $4`
	if s.engine == Postgres {
		pick += ` FOR UPDATE SKIP LOCKED`
	}
	jobs, err := s.claim(ctx, "claim jobs", `UPDATE submission_jobs SET lease_owner = $1, lease_until = $2
		WHERE id IN (`+pick+`) RETURNING `+jobColumns, owner, micros(leaseUntil), micros(now), limit)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(jobs, func(a, b *einvoice.Job) int { return a.NextAttemptAt.Compare(b.NextAttemptAt) })
	return jobs, nil
}

// ClaimUnknown leases the unknown outcomes (maybe-sent submit jobs whose
// lease has expired, past their SettleAfter) of the tenant whose such job has
// been due longest, due or not, skipping a tenant that a sweep holds. On
// PostgreSQL a claimer skips the rows another is claiming, so two claimers at
// the very same moment may still share one tenant's jobs out between them.
func (s *Store) ClaimUnknown(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*einvoice.Job, error) {
	const unknown = `state = 'pending' AND kind = 'submit' AND maybe_sent AND lease_until <= $3 AND settle_after <= $3`
	lock := ""
	if s.engine == Postgres {
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	// A tenant being swept (an unknown outcome of it leased to a sweep,
	// here or in another replica) is left to that sweep: two sweeps of one
	// tenant would each read the same pages at 12 searches a minute.
	tenant := `SELECT tenant_id FROM submission_jobs j WHERE ` + unknown + ` AND next_attempt_at <= $3
		AND NOT EXISTS (SELECT 1 FROM submission_jobs o WHERE o.tenant_id = j.tenant_id AND o.state = 'pending'
			AND o.kind = 'submit' AND o.maybe_sent AND o.lease_until > $3 AND o.lease_owner LIKE '` + einvoice.SweepOwnerPrefix + `%')
		ORDER BY next_attempt_at LIMIT 1` + lock
	pick := `SELECT id FROM submission_jobs WHERE ` + unknown + ` AND tenant_id = (` + tenant + `)
		ORDER BY created_at LIMIT $4` + lock
	jobs, err := s.claim(ctx, "claim unknown outcomes", `UPDATE submission_jobs SET lease_owner = $1, lease_until = $2
		WHERE id IN (`+pick+`) RETURNING `+jobColumns, owner, micros(leaseUntil), micros(now), limit)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(jobs, func(a, b *einvoice.Job) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return jobs, nil
}

// FinishPoll marks a document's pending poll job done unless it is leased.
func (s *Store) FinishPoll(ctx context.Context, tenantID, documentID string, now time.Time) error {
	_, err := s.ws.ExecContext(ctx, `UPDATE submission_jobs SET state = 'done', last_error = '', updated_at = $3
		WHERE tenant_id = $1 AND document_id = $2 AND kind = 'poll' AND state = 'pending' AND lease_until <= $3`,
		tenantID, documentID, micros(now))
	if err != nil {
		return fmt.Errorf("finish poll: %w", err)
	}
	return nil
}

// ClaimSubmissionPolls leases every pending poll job of a submission whose
// lease has expired.
func (s *Store) ClaimSubmissionPolls(ctx context.Context, tenantID, submissionUID, owner string, now, leaseUntil time.Time) ([]*einvoice.Job, error) {
	return s.claim(ctx, "claim submission polls", `UPDATE submission_jobs SET lease_owner = $1, lease_until = $2
		WHERE tenant_id = $3 AND submission_uid = $4 AND kind = 'poll' AND state = 'pending' AND lease_until <= $5
		RETURNING `+jobColumns, owner, micros(leaseUntil), tenantID, submissionUID, micros(now))
}

// claim runs an UPDATE ... RETURNING that leases jobs, as a write
// transaction (on SQLite, in the group commit), and returns the jobs.
func (s *Store) claim(ctx context.Context, what, query string, args ...any) ([]*einvoice.Job, error) {
	var jobs []*einvoice.Job
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		jobs = jobs[:0] // a failed group runs this again
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			j, err := scanJob(rows)
			if err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return jobs, nil
}

// GetJob returns the job of a document.
func (s *Store) GetJob(ctx context.Context, tenantID, documentID string) (*einvoice.Job, error) {
	if !einvoice.ValidID(documentID) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	return scanJob(s.rs.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM submission_jobs WHERE document_id = $1 AND tenant_id = $2`,
		documentID, tenantID))
}

// GetUBL returns the UBL stored for a document.
func (s *Store) GetUBL(ctx context.Context, tenantID, documentID string) ([]byte, error) {
	if !einvoice.ValidID(documentID) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	var body []byte
	err := s.rs.QueryRowContext(ctx, `SELECT body FROM document_ubl WHERE document_id = $1 AND tenant_id = $2`, documentID, tenantID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get ubl: %w", err)
	}
	return body, nil
}

// SetTINCheck records the authority's answer on a party's TIN, without
// touching anything else of the party.
func (s *Store) SetTINCheck(ctx context.Context, tenantID string, kind einvoice.PartyKind, id string, c einvoice.TINCheck) error {
	res, err := s.ws.ExecContext(ctx, `UPDATE parties SET tin_check = $4, tin_check_key = $5, tin_checked_at = $6
		WHERE id = $1 AND tenant_id = $2 AND kind = $3`, id, tenantID, string(kind), string(c.Status), c.Key, nullMicros(c.CheckedAt))
	if err != nil {
		return fmt.Errorf("set tin check: %w", err)
	}
	return mustAffect(res)
}
