package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// maxGroup is the most transactions one group commit holds.
const maxGroup = 64

// errStoreClosed answers writes that arrive after Close.
var errStoreClosed = errors.New("store closed")

// txFunc is the body of a write transaction. It must use the ctx it is
// given (not one it captured) and leave no effect outside the database that
// a second run would repeat: a group that fails is run again one by one.
type txFunc func(ctx context.Context, tx *sql.Tx) error

// groupCommitter runs SQLite write transactions in groups: the
// transactions waiting while one commit syncs to disk are run together in
// one database transaction, each inside a savepoint, and share the next
// commit's fsync. A caller is answered only after the commit that holds
// its writes is durable, so synchronous=FULL still means what it says; one
// transaction failing is rolled back to its savepoint and leaves the others
// of its group alone. Under no contention a group is one transaction and
// costs what a plain transaction costs.
//
// SQLite has one writer, and with synchronous=FULL every commit waits for
// the disk: on the project's VM about 0.3 ms per fsync. Without grouping,
// creating invoices was bound by that wait with the CPU mostly idle.
type groupCommitter struct {
	db   *sql.DB
	reqs chan *groupReq
	stop chan struct{}
	done chan struct{}
	once sync.Once
	// commits counts the groups run, for tests.
	commits atomic.Int64
}

type groupReq struct {
	ctx context.Context
	fn  txFunc
	res chan error // buffered: the committer never blocks on an answer
}

func newGroupCommitter(db *sql.DB) *groupCommitter {
	g := &groupCommitter{db: db, reqs: make(chan *groupReq), stop: make(chan struct{}), done: make(chan struct{})}
	go g.run()
	return g
}

// do runs fn in the next group and returns its outcome once the group's
// commit is durable (or failed). A request that the committer took is
// always answered, even when ctx ends meanwhile: the caller must learn
// whether its write was kept.
func (g *groupCommitter) do(ctx context.Context, fn txFunc) error {
	r := &groupReq{ctx: ctx, fn: fn, res: make(chan error, 1)}
	select {
	case g.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.stop:
		return errStoreClosed
	}
	return <-r.res
}

// close stops the committer after the group in hand.
func (g *groupCommitter) close() {
	g.once.Do(func() { close(g.stop) })
	<-g.done
}

func (g *groupCommitter) run() {
	defer close(g.done)
	group := make([]*groupReq, 0, maxGroup)
	for {
		select {
		case r := <-g.reqs:
			group = append(group[:0], r)
		case <-g.stop:
			return
		}
		// The requests that queued up meanwhile join without waiting: an
		// unbuffered channel hands over exactly the senders already blocked.
	fill:
		for len(group) < maxGroup {
			select {
			case r := <-g.reqs:
				group = append(group, r)
			default:
				break fill
			}
		}
		g.commits.Add(1)
		g.commit(group)
		clear(group)
	}
}

// commit runs one group. Requests whose context ended before their turn are
// answered with its error and not run; the others run with their context's
// values but without its cancellation, because interrupting a statement
// rolls back SQLite's whole transaction, and with it the group.
func (g *groupCommitter) commit(group []*groupReq) {
	live := group[:0:0]
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.res <- err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		live[0].res <- runTx(context.WithoutCancel(live[0].ctx), g.db, live[0].fn)
		return
	}
	bg := context.Background()
	tx, err := g.db.BeginTx(bg, nil)
	if err != nil {
		g.oneByOne(live)
		return
	}
	// Every answer waits for the commit, failures too: a transaction that
	// failed may have failed because of an earlier one's write in this group
	// (a conditional update that lost a race), and its caller, answered
	// early, would read the database before that write is committed and
	// take its own failure for a false one.
	outcomes := make([]error, len(live))
	for i, r := range live {
		err := savepoint(tx, func() error { return call(context.WithoutCancel(r.ctx), tx, r.fn) })
		var broken *groupBroken
		if errors.As(err, &broken) {
			// The transaction is gone (SQLite rolls back the whole of it on
			// some errors): nothing of the group was kept. Run the whole
			// group again one by one.
			_ = tx.Rollback()
			g.oneByOne(live)
			return
		}
		outcomes[i] = err
	}
	if err := tx.Commit(); err != nil {
		// Nothing was kept, and the failures were judged against writes
		// that never happened: run the whole group again one by one.
		_ = tx.Rollback()
		g.oneByOne(live)
		return
	}
	for i, r := range live {
		r.res <- outcomes[i]
	}
}

// oneByOne runs each request in a transaction of its own, the fallback when
// a group could not be committed.
func (g *groupCommitter) oneByOne(group []*groupReq) {
	for _, r := range group {
		r.res <- runTx(context.WithoutCancel(r.ctx), g.db, r.fn)
	}
}

// groupBroken reports that a transaction's failure took the whole group's
// database transaction with it.
type groupBroken struct{ err error }

func (b *groupBroken) Error() string { return b.err.Error() }
func (b *groupBroken) Unwrap() error { return b.err }

// savepoint runs fn inside a savepoint of tx, rolling back to it when fn
// fails. It returns fn's error, or a *groupBroken when the savepoint could
// not be rolled back to.
func savepoint(tx *sql.Tx, fn func() error) error {
	bg := context.Background()
	if _, err := tx.ExecContext(bg, `SAVEPOINT grp`); err != nil {
		return &groupBroken{fmt.Errorf("savepoint: %w", err)}
	}
	if err := fn(); err != nil {
		if _, rbErr := tx.ExecContext(bg, `ROLLBACK TO grp`); rbErr != nil {
			return &groupBroken{err}
		}
		if _, relErr := tx.ExecContext(bg, `RELEASE grp`); relErr != nil {
			return &groupBroken{err}
		}
		return err
	}
	if _, err := tx.ExecContext(bg, `RELEASE grp`); err != nil {
		return &groupBroken{fmt.Errorf("release savepoint: %w", err)}
	}
	return nil
}

// call runs fn, turning a panic into its error: on SQLite fn runs on the
// committer's goroutine, where a panic would end the process instead of
// one request.
func call(ctx context.Context, tx *sql.Tx, fn txFunc) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write transaction panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return fn(ctx, tx)
}

// runTx runs fn in a transaction of its own on db.
func runTx(ctx context.Context, db *sql.DB, fn txFunc) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := call(ctx, tx, fn); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
