package dashboard_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDocumentsPagingAndFilter: 130 documents make 6 pages of 25; the
// CSV export streams all of them (two pages of the service's list); the
// search and the issue-date period filter both; a wrong date is shown
// beside its field.
func TestDocumentsPagingAndFilter(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--rate-limit", "1000")
	buyer := f.buyer(t, f.key, "Hebat Group")
	for i := range 130 {
		f.invoice(t, f.key, buyer, fmt.Sprintf("P-%03d", i))
	}
	b := f.browser(t)
	b.signIn(f.owner)
	p := b.get("/app/documents")
	if n := strings.Count(p.body, `<a href="/app/documents/`); n != 25 || !strings.Contains(p.body, "Page 1 of 6") || !strings.Contains(p.body, `href="?page=2"`) {
		t.Fatalf("page 1: %d rows:\n%s", n, p.body)
	}
	p = b.get("/app/documents?page=6")
	if n := strings.Count(p.body, `<a href="/app/documents/`); n != 5 || !strings.Contains(p.body, "P-000") {
		t.Errorf("page 6: %d rows, want the 5 oldest", n)
	}
	csv := b.get("/app/documents.csv")
	if lines := strings.Count(csv.body, "\n"); csv.status != http.StatusOK || lines != 131 {
		t.Errorf("csv = %d, %d lines; want the header and 130 rows", csv.status, lines)
	}
	p = b.get("/app/documents?search=P-12")
	if n := strings.Count(p.body, `<a href="/app/documents/`); n != 10 || !strings.Contains(p.body, `All <span class="count">10</span>`) {
		t.Errorf("search P-12: %d rows:\n%s", n, p.body)
	}
	if !strings.Contains(p.body, `href="/app/documents?search=P-12&amp;status=draft"`) || !strings.Contains(p.body, `href="/app/documents.csv?search=P-12"`) {
		t.Errorf("the tabs and the export do not keep the search:\n%s", p.body)
	}
	if csv := b.get("/app/documents.csv?search=P-12"); strings.Count(csv.body, "\n") != 11 {
		t.Errorf("the export of search P-12:\n%s", csv.body)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if p := b.get("/app/documents?from=2000-01-01&to=2000-12-31"); !strings.Contains(p.body, "No documents match.") {
		t.Errorf("a period without documents:\n%s", p.body)
	}
	if p := b.get("/app/documents?from=" + today + "&to=" + today + "&status=draft"); !strings.Contains(p.body, "130 documents.") {
		t.Errorf("today's drafts are not 130:\n%s", p.body)
	}
	p = b.get("/app/documents?from=yesterday")
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="e-from"`) || !strings.Contains(p.body, `value="yesterday"`) {
		t.Errorf("a wrong date = %d, want its error beside the field and what was typed:\n%s", p.status, p.body)
	}
}
