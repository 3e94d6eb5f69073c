package myinvois

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// pageSize is the largest page the authority serves.
const pageSize = 100

// maxPages bounds the pages read of one submission (10,000 documents).
const maxPages = 100

// wireDocState is a document as Get Submission, Get Document Details and
// Search list it (the fields used). JSON names match case-insensitively, so
// submissionUid also reads search's submissionUID.
type wireDocState struct {
	UUID                  string     `json:"uuid"`
	SubmissionUID         string     `json:"submissionUid"`
	LongID                flexString `json:"longId"`
	InternalID            string     `json:"internalId"`
	Status                string     `json:"status"`
	DateTimeIssued        flexString `json:"dateTimeIssued"`
	DateTimeReceived      flexString `json:"dateTimeReceived"`
	DateTimeValidated     flexString `json:"dateTimeValidated"`
	CancelDateTime        flexString `json:"cancelDateTime"`
	RejectRequestDateTime flexString `json:"rejectRequestDateTime"`
	DocumentStatusReason  flexString `json:"documentStatusReason"`
}

// state maps a listed document; times that cannot be read are logged and
// left out rather than failing the whole answer.
func (c *Client) state(ctx context.Context, w wireDocState) einvoice.DocumentState {
	s := einvoice.DocumentState{
		UUID:          w.UUID,
		SubmissionUID: w.SubmissionUID,
		LongID:        string(w.LongID),
		CodeNumber:    w.InternalID,
		Status:        w.Status,
		StatusReason:  string(w.DocumentStatusReason),
	}
	if t := c.timeField(ctx, w.UUID, "dateTimeReceived", w.DateTimeReceived); t != nil {
		s.SubmittedAt = *t
	}
	s.IssuedAt = c.timeField(ctx, w.UUID, "dateTimeIssued", w.DateTimeIssued)
	s.ValidatedAt = c.timeField(ctx, w.UUID, "dateTimeValidated", w.DateTimeValidated)
	s.CancelledAt = c.timeField(ctx, w.UUID, "cancelDateTime", w.CancelDateTime)
	s.RejectRequestedAt = c.timeField(ctx, w.UUID, "rejectRequestDateTime", w.RejectRequestDateTime)
	return s
}

func (c *Client) timeField(ctx context.Context, uuid, name string, v flexString) *time.Time {
	t, err := parseTime(string(v))
	if err != nil {
		c.log.LogAttrs(ctx, slog.LevelWarn, "myinvois: unreadable time",
			slog.String("uuid", uuid), slog.String("field", name), slog.String("error", err.Error()))
	}
	return t
}

// submissionPage is one page of Get Submission.
type submissionPage struct {
	SubmissionUID   string         `json:"submissionUid"`
	DocumentCount   flexString     `json:"documentCount"`
	OverallStatus   string         `json:"overallStatus"`
	DocumentSummary []wireDocState `json:"documentSummary"`
}

// GetSubmission reads every document of a submission, page by page (100 a
// page) until documentCount documents are read. OverallStatus is the first
// page's; each document's SubmissionUID defaults to the submission's.
func (c *Client) GetSubmission(ctx context.Context, cred einvoice.Credentials, submissionUID string) (einvoice.SubmissionState, error) {
	const op = "myinvois: get submission"
	path := "/api/v1.0/documentsubmissions/" + url.PathEscape(submissionUID)
	var (
		res  einvoice.SubmissionState
		seen = map[string]bool{}
	)
	for page := 1; page <= maxPages; page++ {
		q := url.Values{"pageNo": {strconv.Itoa(page)}, "pageSize": {strconv.Itoa(pageSize)}}
		var p submissionPage
		if err := c.getJSON(ctx, cred, EndpointGetSubmission, op, path, q, &p); err != nil {
			return einvoice.SubmissionState{}, err
		}
		if page == 1 {
			res.SubmissionUID = p.SubmissionUID
			if res.SubmissionUID == "" {
				res.SubmissionUID = submissionUID
			}
			res.OverallStatus = p.OverallStatus
		}
		for _, w := range p.DocumentSummary {
			if w.UUID != "" && seen[w.UUID] {
				continue
			}
			seen[w.UUID] = true
			s := c.state(ctx, w)
			if s.SubmissionUID == "" {
				s.SubmissionUID = res.SubmissionUID
			}
			res.Documents = append(res.Documents, s)
		}
		count, err := strconv.Atoi(string(p.DocumentCount))
		if err != nil {
			count = -1 // unknown: read on while pages are full
		}
		if len(p.DocumentSummary) == 0 || count >= 0 && len(res.Documents) >= count ||
			count < 0 && len(p.DocumentSummary) < pageSize {
			break
		}
	}
	return res, nil
}
