package einvoice

import "time"

// MYT is Malaysian time, UTC+8 all year (no daylight saving): the
// authority's time zone, the zone of receipt months and dated rules, and
// the zone of every time shown to a person (DECISIONS 19). The API keeps
// RFC 3339 with the offset it stores.
var MYT = time.FixedZone("MYT", 8*60*60)

// FormatMYT writes t for a person: in Malaysian time, to the minute,
// labelled, "2026-11-28 00:35 MYT".
func FormatMYT(t time.Time) string { return t.In(MYT).Format("2006-01-02 15:04") + " MYT" }
