package myinvois

import (
	"fmt"
	"strings"
	"time"
)

// timeLayouts are the spellings of the authority's times that are accepted:
// RFC 3339 with or without fractional seconds, and the same without a zone
// (read as UTC), with a "T" or a space between date and time.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

// parseTime reads one of the authority's times: nil for "" and for the zero
// time that .NET services send for "none" (year 1), an error for text that
// is not a time.
func parseTime(s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	for _, layout := range timeLayouts {
		if p, err := time.Parse(layout, s); err == nil {
			if p.Year() <= 1 {
				return nil, nil
			}
			p = p.UTC()
			return &p, nil
		}
	}
	return nil, fmt.Errorf("unreadable time %q", s)
}

// formatTime writes a time as the authority's query parameters expect it:
// RFC 3339 in UTC, whole seconds.
func formatTime(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}
