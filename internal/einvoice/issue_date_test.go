package einvoice

import (
	"testing"
	"time"
)

// TestIssueDate: erpIssuedAt when given, else the issue time recorded at
// submission, else the creation; always the UTC calendar date.
func TestIssueDate(t *testing.T) {
	myt := time.FixedZone("MYT", 8*3600)
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	created := time.Date(2026, 3, 10, 23, 30, 0, 0, myt) // 15:30Z on the 10th
	for _, tc := range []struct {
		name string
		doc  Document
		want string
	}{
		{"draft: its creation", Document{CreatedAt: created}, "2026-03-10"},
		{"draft created before midnight UTC, after midnight in Malaysia", Document{CreatedAt: time.Date(2026, 3, 11, 7, 59, 59, 999999999, myt)}, "2026-03-10"},
		{"erpIssuedAt, in UTC", Document{CreatedAt: created, ErpIssuedAt: at("2026-03-01T01:00:00+08:00")}, "2026-02-28"},
		{"erpIssuedAt before the authority's record", Document{CreatedAt: created, ErpIssuedAt: at("2026-03-05T12:00:00Z"),
			Authority: &AuthorityRecord{IssuedAt: at("2026-03-07T12:00:00Z")}}, "2026-03-05"},
		{"sent: the issue time recorded", Document{CreatedAt: created, Authority: &AuthorityRecord{IssuedAt: at("2026-03-12T00:00:00Z")}}, "2026-03-12"},
		{"an authority record without an issue time", Document{CreatedAt: created, Authority: &AuthorityRecord{DocumentUUID: "X"}}, "2026-03-10"},
	} {
		got := tc.doc.IssueDate()
		if got.Format("2006-01-02") != tc.want || got.Location() != time.UTC || got.Hour()+got.Minute()+got.Second()+got.Nanosecond() != 0 {
			t.Errorf("%s: IssueDate = %v, want midnight UTC of %s", tc.name, got, tc.want)
		}
	}
}
