package einvoice

import (
	"testing"
	"time"
)

// TestFormatMYT: a time is written in Malaysian time, labelled, whatever
// its own zone.
func TestFormatMYT(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 27, 16, 35, 0, 0, time.UTC), "2026-11-28 00:35 MYT"},
		{time.Date(2026, 11, 28, 0, 35, 59, 0, time.FixedZone("", 8*3600)), "2026-11-28 00:35 MYT"},
		{time.Date(2026, 12, 31, 10, 0, 0, 0, time.FixedZone("CET", 3600)), "2026-12-31 17:00 MYT"},
	} {
		if got := FormatMYT(tc.in); got != tc.want {
			t.Errorf("FormatMYT(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestIssueTime: the moment whose UTC date is IssueDate, and whose
// Malaysian date a person reads.
func TestIssueTime(t *testing.T) {
	created := time.Date(2026, 11, 27, 16, 35, 0, 0, time.UTC)
	erp, sent := created.Add(-time.Hour), created.Add(time.Hour)
	for _, tc := range []struct {
		name string
		doc  Document
		want time.Time
	}{
		{"a draft: its creation", Document{CreatedAt: created}, created},
		{"sent: the issue time recorded", Document{CreatedAt: created, Authority: &AuthorityRecord{IssuedAt: &sent}}, sent},
		{"erpIssuedAt first", Document{CreatedAt: created, ErpIssuedAt: &erp, Authority: &AuthorityRecord{IssuedAt: &sent}}, erp},
	} {
		if got := tc.doc.IssueTime(); !got.Equal(tc.want) {
			t.Errorf("%s: IssueTime = %v, want %v", tc.name, got, tc.want)
		}
	}
	d := Document{CreatedAt: created}
	if got, want := d.IssueDate().Format(DateLayout), "2026-11-27"; got != want {
		t.Errorf("IssueDate = %s, want the UTC date %s", got, want)
	}
	if got, want := d.IssueTime().In(MYT).Format(DateLayout), "2026-11-28"; got != want {
		t.Errorf("the Malaysian date of IssueTime = %s, want %s", got, want)
	}
}
