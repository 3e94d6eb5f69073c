package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// groupDB opens a SQLite writer like the store's, with one table of keys.
func groupDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteDSN(filepath.Join(t.TempDir(), "g.db"), true))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE k (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	return db
}

func keys(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT k FROM k ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

func insert(k string) txFunc {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO k (k) VALUES ($1)`, k)
		return err
	}
}

func req(ctx context.Context, fn txFunc) *groupReq {
	return &groupReq{ctx: ctx, fn: fn, res: make(chan error, 1)}
}

// TestGroupCommitIsolatesFailures commits one group in which a transaction
// fails after writing, one breaks a constraint and one's caller gave up:
// only their writes are undone, and every caller gets its own answer.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	t.Parallel()
	db := groupDB(t)
	g := &groupCommitter{db: db}
	errOwn := errors.New("own failure")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	group := []*groupReq{
		req(bg, insert("a")),
		req(bg, func(ctx context.Context, tx *sql.Tx) error {
			if err := insert("half")(ctx, tx); err != nil {
				return err
			}
			return errOwn
		}),
		req(bg, insert("a")), // duplicate key
		req(cancelled, insert("cancelled")),
		req(bg, insert("b")),
	}
	g.commit(group)
	if err := <-group[0].res; err != nil {
		t.Errorf("a: %v", err)
	}
	if err := <-group[1].res; !errors.Is(err, errOwn) {
		t.Errorf("half: %v, want the transaction's own error", err)
	}
	if err := <-group[2].res; err == nil {
		t.Error("duplicate a: no error")
	}
	if err := <-group[3].res; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := <-group[4].res; err != nil {
		t.Errorf("b: %v", err)
	}
	if got := keys(t, db); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("kept %v, want [a b]", got)
	}
}

// TestGroupCommitPanic: a transaction that panics fails alone, as an error,
// and the committer (and the process) lives on.
func TestGroupCommitPanic(t *testing.T) {
	t.Parallel()
	db := groupDB(t)
	g := newGroupCommitter(db)
	defer g.close()
	ctx := context.Background()
	err := g.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := insert("p")(ctx, tx); err != nil {
			return err
		}
		panic("boom")
	})
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("panicking transaction: %v", err)
	}
	if err := g.do(ctx, insert("after")); err != nil {
		t.Fatalf("after the panic: %v", err)
	}
	if got := keys(t, db); !slices.Equal(got, []string{"after"}) {
		t.Errorf("kept %v, want [after]", got)
	}
}

// TestGroupCommitBrokenTransaction has a member end the whole database
// transaction (as SQLite does on some errors): the group is run again one
// by one, so the others' writes are still kept.
func TestGroupCommitBrokenTransaction(t *testing.T) {
	t.Parallel()
	db := groupDB(t)
	g := &groupCommitter{db: db}
	bg := context.Background()
	runs := 0
	group := []*groupReq{
		req(bg, insert("a")),
		req(bg, func(ctx context.Context, tx *sql.Tx) error {
			runs++
			if runs == 1 {
				if _, err := tx.ExecContext(ctx, `ROLLBACK`); err != nil {
					return err
				}
				return errors.New("rolled back everything")
			}
			return insert("c")(ctx, tx)
		}),
		req(bg, insert("b")),
	}
	g.commit(group)
	if runs != 2 {
		t.Errorf("the breaking member ran %d times, want 2 (in the group, then alone)", runs)
	}
	for i, r := range group {
		if err := <-r.res; err != nil {
			t.Errorf("member %d: %v", i, err)
		}
	}
	if got := keys(t, db); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("kept %v, want [a b c]", got)
	}
}

// TestGroupCommitGroups checks that concurrent writers do share commits and
// that Close answers later callers.
func TestGroupCommitGroups(t *testing.T) {
	t.Parallel()
	db := groupDB(t)
	g := newGroupCommitter(db)
	var rows int
	ctx := context.Background()
	done := make(chan error)
	const n = 200
	for i := range n {
		go func() { done <- g.do(ctx, insert(string(rune('A'+i%26))+string(rune('0'+i/26)))) }()
	}
	for range n {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM k`).Scan(&rows); err != nil || rows != n {
		t.Fatalf("rows = %d, %v; want %d", rows, err, n)
	}
	if c := g.commits.Load(); c >= n {
		t.Errorf("%d writers took %d commits: none shared one", n, c)
	} else {
		t.Logf("%d writers, %d commits", n, c)
	}
	g.close()
	if err := g.do(ctx, insert("late")); !errors.Is(err, errStoreClosed) {
		t.Errorf("after close: %v", err)
	}
}

// TestGroupCommitAnswersFailuresAfterCommit: a member that fails because an
// earlier member of its group wrote first (a lost race) is answered only
// once that write is committed, so that its caller, reading the database on
// another connection, sees the state it lost to (issue: a loser of two
// concurrent submits re-read the document as still ready and answered 422).
func TestGroupCommitAnswersFailuresAfterCommit(t *testing.T) {
	t.Parallel()
	db := groupDB(t)
	g := &groupCommitter{db: db}
	bg := context.Background()
	errLost := errors.New("lost the race")
	loser := req(bg, func(ctx context.Context, tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM k WHERE k = 'won'`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return errLost
		}
		return insert("won")(ctx, tx)
	})
	answeredEarly := false
	group := []*groupReq{
		req(bg, insert("won")),
		loser,
		// A later member looks whether the loser was answered before the
		// group's commit.
		req(bg, func(ctx context.Context, tx *sql.Tx) error {
			answeredEarly = len(loser.res) > 0
			return insert("later")(ctx, tx)
		}),
	}
	g.commit(group)
	if answeredEarly {
		t.Error("the failed member was answered before its group was committed")
	}
	if err := <-loser.res; !errors.Is(err, errLost) {
		t.Errorf("loser: %v, want %v", err, errLost)
	}
	for _, i := range []int{0, 2} {
		if err := <-group[i].res; err != nil {
			t.Errorf("member %d: %v", i, err)
		}
	}
	if got := keys(t, db); !slices.Equal(got, []string{"later", "won"}) {
		t.Errorf("kept %v, want [later won]", got)
	}
}
