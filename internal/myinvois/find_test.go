package myinvois_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
	"github.com/einvoice/einvoice/internal/testscale"
)

// searchClient is a client that counts its search calls and calls
// onSearch, when set, after each (with their count so far).
type searchClient struct {
	*myinvois.Client
	searches atomic.Int64
	onSearch func(n int64)
}

func newSearchClient(t *testing.T) *searchClient {
	sc := &searchClient{}
	sc.Client = myinvois.New(myinvois.Options{Logger: quietLogger(t), OnCall: func(endpoint string, _ int, _ time.Duration) {
		if endpoint == myinvois.EndpointSearch {
			if n := sc.searches.Add(1); sc.onSearch != nil {
				sc.onSearch(n)
			}
		}
	}})
	return sc
}

// find runs FindDocuments for code numbers sent since a time and returns
// the result and how many search calls it made.
func (sc *searchClient) find(t *testing.T, env sandboxEnv, since time.Time, codes ...string) (einvoice.FindResult, int64, error) {
	t.Helper()
	sought := make([]einvoice.SoughtDocument, len(codes))
	for i, c := range codes {
		sought[i] = einvoice.SoughtDocument{CodeNumber: c, Since: since}
	}
	before := sc.searches.Load()
	res, err := sc.FindDocuments(context.Background(), env.cred, sought)
	return res, sc.searches.Load() - before, err
}

// submitEach sends n sample documents in submissions of 100, in order, a
// millisecond apart, and returns their code numbers (the newest last).
func submitEach(t *testing.T, c *myinvois.Client, env sandboxEnv, n int) []string {
	t.Helper()
	var codes []string
	for len(codes) < n {
		var docs []einvoice.OutgoingDocument
		for range min(100, n-len(codes)) {
			docs = append(docs, sample(t, buyerTIN))
		}
		res, err := c.Submit(context.Background(), env.cred, docs)
		if err != nil || len(res.Accepted) != len(docs) {
			t.Fatalf("submit: %+v, %v", res, err)
		}
		for _, d := range docs {
			codes = append(codes, d.CodeNumber)
		}
		time.Sleep(time.Millisecond)
	}
	return codes
}

// TestFindDocumentsPaging: against the sandbox over HTTP, a search reads
// pages newest first and stops once every sought document is found; after
// the first page it searches by code number when that takes fewer calls; a
// document it never sees is absent only once every page was read; a failed
// page leaves the unfound ones unknown.
func TestFindDocumentsPaging(t *testing.T) {
	engines(t, func(t *testing.T, dsn string) {
		env := startSandbox(t, dsn, sandbox.Options{})
		sc := newSearchClient(t)
		start := time.Now()
		// Three submissions of 100: page 1 lists the newest (codes 200 to
		// 299), page 3 the oldest (0 to 99).
		codes := submitEach(t, sc.Client, env, 300)

		for _, tc := range []struct {
			name   string
			codes  []string
			calls  int64
			absent []bool
		}{
			{"three on the first page: one page", []string{codes[299], codes[250], codes[200]}, 1, []bool{false, false, false}},
			{"three on the last page: every page", []string{codes[0], codes[50], codes[99]}, 3, []bool{false, false, false}},
			{"one: a search for its number", []string{codes[0]}, 1, []bool{false}},
			{"one on the first page, one on the last: then by number", []string{codes[299], codes[0]}, 2, []bool{false, false}},
			{"three never sent: every page, then absent", []string{"NEVER-1", "NEVER-2", "NEVER-3"}, 3, []bool{true, true, true}},
			{"one never sent: its number, absent", []string{"NEVER-4"}, 1, []bool{true}},
			{"found and never sent", []string{codes[150], "NEVER-5", codes[120]}, 3, []bool{false, true, false}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, calls, err := sc.find(t, env, start, tc.codes...)
				if err != nil {
					t.Fatal(err)
				}
				if calls != tc.calls {
					t.Errorf("%d search calls, want %d", calls, tc.calls)
				}
				if !slices.Equal(res.Absent, tc.absent) {
					t.Errorf("Absent = %v, want %v", res.Absent, tc.absent)
				}
				for i, code := range tc.codes {
					want := 1
					if tc.absent[i] {
						want = 0
					}
					if len(res.Matches[i]) != want || (want == 1 && (res.Matches[i][0].CodeNumber != code || len(res.Matches[i][0].UUID) != 26)) {
						t.Errorf("matches of %s: %+v, want %d", code, res.Matches[i], want)
					}
				}
			})
		}

		t.Run("a failed page", func(t *testing.T) {
			sc.onSearch = func(n int64) {
				if n == 1 {
					env.sb.AddFault(sandbox.Fault{Endpoint: "search", Kind: sandbox.FaultFail, Count: 1})
				}
			}
			defer func() { sc.onSearch = nil }()
			sc.searches.Store(0)
			res, calls, err := sc.find(t, env, start, codes[299], "NEVER-6", codes[0])
			if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 500 {
				t.Errorf("error %v, want the failed page's 500", err)
			}
			if calls != 2 || len(res.Matches[0]) != 1 || len(res.Matches[1]) != 0 || len(res.Matches[2]) != 0 || slices.Contains(res.Absent, true) {
				t.Errorf("after %d calls: %+v; want the first page's document, nothing absent", calls, res)
			}
		})
	})
}

// TestFindDocumentsResentNumber: a code number sent again (an Invalid
// document corrected and issued anew) matches by its issue time: the
// earlier copy does not count as this one, and an issue time never sent is
// absent.
func TestFindDocumentsResentNumber(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	sc := newSearchClient(t)
	start := time.Now()
	code := "RESENT-1"
	first := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	second := first.Add(30 * time.Second)
	for _, d := range []einvoice.OutgoingDocument{sampleDoc(t, "C99999999990", code, first), sampleDoc(t, buyerTIN, code, second)} {
		if res, err := sc.Submit(context.Background(), env.cred, []einvoice.OutgoingDocument{d}); err != nil || len(res.Accepted) != 1 {
			t.Fatalf("submit: %+v, %v", res, err)
		}
	}
	never := second.Add(time.Hour)
	res, err := sc.FindDocuments(context.Background(), env.cred, []einvoice.SoughtDocument{
		{CodeNumber: code, IssuedAt: &second, Since: start},
		{CodeNumber: code, IssuedAt: &first, Since: start},
		{CodeNumber: code, IssuedAt: &never, Since: start},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches[0]) != 1 || res.Matches[0][0].Status != "Valid" || !res.Matches[0][0].IssuedAt.Equal(second) {
		t.Errorf("the second issue: %+v, want the Valid copy alone", res.Matches[0])
	}
	if len(res.Matches[1]) != 1 || res.Matches[1][0].Status != "Invalid" {
		t.Errorf("the first issue: %+v, want the Invalid copy alone", res.Matches[1])
	}
	if len(res.Matches[2]) != 0 || !res.Absent[2] || res.Absent[0] || res.Absent[1] {
		t.Errorf("an issue time never sent: %+v, Absent %v; want absent alone", res.Matches[2], res.Absent)
	}
}

// TestScaleFindDocumentsTruncated: a window holding more than the 10,000
// results the search lists is split until each part is listed in full (or
// searched by code number when that takes fewer calls); a second holding
// more than 10,000 cannot be split, and leaves what may lie in it unknown.
func TestScaleFindDocumentsTruncated(t *testing.T) {
	testscale.Mark(t)
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	now := time.Now()
	const n = 10050
	bulk := func(i int) string { return fmt.Sprintf("BULK-%05d", i) }
	// 10,050 documents over the last 10 minutes and 3 seconds, the oldest first.
	if err := env.sb.Seed(context.Background(), env.cred.ClientID, "BULK-", n, now.Add(-n*60*time.Millisecond), 60*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	never := make([]string, 150)
	for i := range never {
		never[i] = fmt.Sprintf("NEVER-%03d", i)
	}
	since := now.Add(-15 * time.Minute)

	t.Run("split", func(t *testing.T) {
		sc := newSearchClient(t)
		res, calls, err := sc.find(t, env, since, append([]string{bulk(3)}, never...)...)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches[0]) != 1 || res.Absent[0] || slices.Contains(res.Absent[1:], false) {
			t.Errorf("matches %v, absent %v: want the oldest document found and the 150 others absent", res.Matches[0], res.Absent)
		}
		// At least every page of the 10,050, at most a few more for the
		// first page of each split.
		if calls < 101 || calls > 120 {
			t.Errorf("%d search calls, want 101 to 120", calls)
		}
		t.Logf("%d search calls to read 10,050 documents", calls)
	})

	t.Run("by number", func(t *testing.T) {
		sc := newSearchClient(t)
		res, calls, err := sc.find(t, env, since, bulk(3), bulk(5000), "NEVER-X")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches[0]) != 1 || len(res.Matches[1]) != 1 || !slices.Equal(res.Absent, []bool{false, false, true}) {
			t.Errorf("%+v: want two found and one absent", res)
		}
		if calls != 4 {
			t.Errorf("%d search calls, want 4 (the first page, then one per number)", calls)
		}
	})

	t.Run("a second too full to list", func(t *testing.T) {
		env := env
		env.cred.ClientID, env.cred.ClientSecret = "erp-client-dense", "dense-secret"
		at := now.Truncate(time.Second).Add(-10 * time.Minute)
		if err := env.sb.Seed(context.Background(), env.cred.ClientID, "BULK-", n, at, time.Microsecond); err != nil {
			t.Fatal(err)
		}
		sc := newSearchClient(t)
		res, calls, err := sc.find(t, env, since, never...)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(res.Absent, true) {
			t.Errorf("Absent = %v: nothing may be absent when a second could not be listed", res.Absent)
		}
		if calls > 40 {
			t.Errorf("%d search calls, want a split down to a second (at most 40)", calls)
		}
		// A document that can only have been sent after that second is
		// still known absent.
		res, _, err = sc.find(t, env, now.Add(-2*time.Minute), "NEVER-LATER", "NEVER-LATER-2")
		if err != nil || !slices.Equal(res.Absent, []bool{true, true}) {
			t.Errorf("sought since after the full second: %+v, %v; want absent", res, err)
		}
	})
}
