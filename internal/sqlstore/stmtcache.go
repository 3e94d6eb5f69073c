package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps one prepared statement per query text on a pool, so that
// SQLite does not parse and plan the same SQL on every request (a quarter
// of a read's CPU before; see bench/README.md). The number of distinct
// query texts is small and fixed by the code.
//
// On PostgreSQL the cache passes queries through: pgx already keeps
// prepared statements per connection, and re-prepares them when a
// migration changes a table under a running replica.
type stmtCache struct {
	db          *sql.DB
	passthrough bool
	// group, when set, runs ExecContext in the next group commit (SQLite's
	// writer), so that single-statement writes share fsyncs too.
	group *groupCommitter
	mu    sync.RWMutex
	m     map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB, passthrough bool) *stmtCache {
	return &stmtCache{db: db, passthrough: passthrough, m: map[string]*sql.Stmt{}}
}

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.RLock()
	st := c.m[query]
	c.mu.RUnlock()
	if st != nil {
		return st, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st = c.m[query]; st != nil {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.m[query] = st
	return st, nil
}

// QueryRowContext runs a single-row query through its prepared statement.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if c.passthrough {
		return c.db.QueryRowContext(ctx, query, args...)
	}
	st, err := c.stmt(ctx, query)
	if err != nil { // let the pool report the same error through the row
		return c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// QueryContext runs a query through its prepared statement.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if c.passthrough {
		return c.db.QueryContext(ctx, query, args...)
	}
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// ExecContext runs a statement through its prepared statement.
func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if c.passthrough {
		return c.db.ExecContext(ctx, query, args...)
	}
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.group == nil {
		return st.ExecContext(ctx, args...)
	}
	var res sql.Result
	err = c.group.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		res, err = tx.StmtContext(ctx, st).ExecContext(ctx, args...)
		return err
	})
	return res, err
}

// close closes every prepared statement.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = map[string]*sql.Stmt{}
}
