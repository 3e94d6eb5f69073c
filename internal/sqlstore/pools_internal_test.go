package sqlstore

import (
	"net/url"
	"testing"
)

// TestPostgresPools: pool_max_conns is shared among the pools and removed
// from the URL the server sees; without it the pools keep their sizes;
// a value out of range is refused, naming the parameter.
func TestPostgresPools(t *testing.T) {
	const base = "postgres://u@127.0.0.1:5432/db?sslmode=disable"
	for _, tc := range []struct {
		dsn  string
		want poolSizes
	}{
		{base, poolSizes{main: 20, unsynced: 8, hooks: 4}},
		{base + "&pool_max_conns=16", poolSizes{main: 10, unsynced: 4, hooks: 2}},
		{base + "&pool_max_conns=6", poolSizes{main: 4, unsynced: 1, hooks: 1}},
		{base + "&pool_max_conns=100", poolSizes{main: 62, unsynced: 25, hooks: 12}},
	} {
		dsn, got, err := postgresPools(tc.dsn)
		if err != nil || got != tc.want {
			t.Errorf("postgresPools(%q) = %+v, %v; want %+v", tc.dsn, got, err, tc.want)
			continue
		}
		u, _ := url.Parse(dsn)
		if u.Query().Has("pool_max_conns") || u.Query().Get("sslmode") != "disable" {
			t.Errorf("postgresPools(%q) left the URL %q; want pool_max_conns removed and the rest kept", tc.dsn, dsn)
		}
	}
	for _, v := range []string{"0", "5", "1001", "many", "-3"} {
		if _, _, err := postgresPools(base + "&pool_max_conns=" + v); err == nil {
			t.Errorf("pool_max_conns=%s accepted; want an error", v)
		}
	}
}
