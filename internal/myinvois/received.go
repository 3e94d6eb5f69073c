package myinvois

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var _ einvoice.ReceivedAPI = (*Client)(nil)

// wireReceived is a document as Search and Get Document list it, with the
// fields a buyer needs.
type wireReceived struct {
	wireDocState
	TypeName           flexString `json:"typeName"`
	TypeVersionName    flexString `json:"typeVersionName"`
	IssuerTIN          flexString `json:"issuerTin"`
	IssuerName         flexString `json:"issuerName"`
	ReceiverID         flexString `json:"receiverId"`
	ReceiverName       flexString `json:"receiverName"`
	TotalExcludingTax  flexString `json:"totalExcludingTax"`
	TotalNetAmount     flexString `json:"totalNetAmount"`
	TotalPayableAmount flexString `json:"totalPayableAmount"`
}

func (c *Client) receivedSummary(ctx context.Context, w wireReceived) einvoice.ReceivedSummary {
	st := c.state(ctx, w.wireDocState)
	s := einvoice.ReceivedSummary{
		UUID: st.UUID, SubmissionUID: st.SubmissionUID, LongID: st.LongID, Number: st.CodeNumber,
		TypeName: string(w.TypeName), TypeVersion: string(w.TypeVersionName),
		IssuerTIN: string(w.IssuerTIN), IssuerName: string(w.IssuerName),
		ReceiverTIN: string(w.ReceiverID), ReceiverName: string(w.ReceiverName),
		Status: st.Status, StatusReason: st.StatusReason, SubmittedAt: st.SubmittedAt,
		ValidatedAt: st.ValidatedAt, CancelledAt: st.CancelledAt, RejectionAt: st.RejectRequestedAt,
		TotalExcludingTax: string(w.TotalExcludingTax), TotalNet: string(w.TotalNetAmount), TotalPayable: string(w.TotalPayableAmount),
	}
	if st.IssuedAt != nil {
		s.IssuedAt = *st.IssuedAt
	}
	return s
}

// SearchReceived lists one page of 100 of the documents received (search
// with invoiceDirection Received) submitted in [from, to], newest first.
func (c *Client) SearchReceived(ctx context.Context, cred einvoice.Credentials, from, to time.Time, status string, page int) (einvoice.ReceivedPage, error) {
	q := url.Values{
		"submissionDateFrom": {formatTime(from)},
		"submissionDateTo":   {formatTime(to)},
		"invoiceDirection":   {"Received"},
		"pageSize":           {strconv.Itoa(searchPageSize)},
		"pageNo":             {strconv.Itoa(page)},
	}
	if status != "" {
		q.Set("status", status)
	}
	var p struct {
		Result   []wireReceived `json:"result"`
		Metadata struct {
			TotalPages int `json:"totalPages"`
			TotalCount int `json:"totalCount"`
		} `json:"metadata"`
	}
	if err := c.getJSON(ctx, cred, EndpointSearch, "myinvois: search received documents", "/api/v1.0/documents/search", q, &p); err != nil {
		return einvoice.ReceivedPage{}, err
	}
	out := einvoice.ReceivedPage{TotalPages: p.Metadata.TotalPages, TotalCount: p.Metadata.TotalCount}
	for _, w := range p.Result {
		out.Documents = append(out.Documents, c.receivedSummary(ctx, w))
	}
	return out, nil
}

// GetRawDocument is Get Document: the summary and the document as it was
// submitted (its text: UBL JSON or XML).
func (c *Client) GetRawDocument(ctx context.Context, cred einvoice.Credentials, uuid string) (einvoice.ReceivedSummary, []byte, error) {
	const op = "myinvois: get document"
	var d struct {
		wireReceived
		Document string `json:"document"`
	}
	path := "/api/v1.0/documents/" + url.PathEscape(uuid) + "/raw"
	if err := c.getJSON(ctx, cred, EndpointRawDocument, op, path, nil, &d); err != nil {
		return einvoice.ReceivedSummary{}, nil, err
	}
	s := c.receivedSummary(ctx, d.wireReceived)
	if s.UUID == "" {
		s.UUID = uuid
	}
	return s, []byte(d.Document), nil
}

// RejectDocument asks the authority to reject a received document (PUT
// .../state with status rejected); a 200 carrying an error block is a
// failure, as for cancel.
func (c *Client) RejectDocument(ctx context.Context, cred einvoice.Credentials, uuid, reason string) error {
	return c.changeState(ctx, cred, "myinvois: reject document", uuid, "rejected", reason)
}

// Notifications lists the taxpayer's notifications created since then, the
// newest 100 (Get Notifications; the sandbox sets it no rate limit, nor does
// the budget).
func (c *Client) Notifications(ctx context.Context, cred einvoice.Credentials, since time.Time) ([]einvoice.Notification, error) {
	q := url.Values{
		"dateFrom": {formatTime(since)},
		"dateTo":   {formatTime(c.now().Add(time.Minute))},
		"pageNo":   {"1"},
		"pageSize": {strconv.Itoa(searchPageSize)},
	}
	var p struct {
		Result []struct {
			NotificationID   flexString `json:"notificationId"`
			TypeID           flexString `json:"typeId"`
			CreationDateTime flexString `json:"creationDateTime"`
		} `json:"result"`
	}
	if err := c.getJSON(ctx, cred, EndpointNotifications, "myinvois: get notifications", "/api/v1.0/notifications/taxpayer", q, &p); err != nil {
		return nil, err
	}
	out := make([]einvoice.Notification, 0, len(p.Result))
	for _, n := range p.Result {
		at := c.timeField(ctx, "", "creationDateTime", n.CreationDateTime)
		if at == nil {
			continue
		}
		out = append(out, einvoice.Notification{ID: string(n.NotificationID), TypeID: string(n.TypeID), At: *at})
	}
	return out, nil
}
