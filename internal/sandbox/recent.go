package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// recentWindow is how far back Get Recent Documents looks.
const recentWindow = 31 * 24 * time.Hour

// recentDocument is a document as Get Recent Documents lists it: the
// summary's fields under the names that endpoint uses, and the parties as
// supplier and buyer.
type recentDocument struct {
	UUID                  string          `json:"uuid"`
	SubmissionUID         string          `json:"submissionUID"`
	LongID                string          `json:"longId"`
	InternalID            string          `json:"internalId"`
	TypeName              string          `json:"typeName"`
	TypeVersionName       string          `json:"typeVersionName"`
	IssuerTIN             string          `json:"issuerTin"`
	IssuerName            string          `json:"issuerName"`
	ReceiverID            string          `json:"receiverId"`
	ReceiverName          string          `json:"receiverName"`
	DateTimeIssued        string          `json:"dateTimeIssued"`
	DateTimeReceived      string          `json:"dateTimeReceived"`
	DateTimeValidated     *string         `json:"dateTimeValidated"`
	TotalSales            json.RawMessage `json:"totalSales"`
	TotalDiscount         json.RawMessage `json:"totalDiscount"`
	NetAmount             json.RawMessage `json:"netAmount"`
	Total                 json.RawMessage `json:"total"`
	Status                string          `json:"status"`
	CancelDateTime        *string         `json:"cancelDateTime"`
	RejectRequestDateTime *string         `json:"rejectRequestDateTime"`
	DocumentStatusReason  *string         `json:"documentStatusReason"`
	CreatedByUserID       string          `json:"createdByUserId"`
	SupplierTIN           string          `json:"supplierTin"`
	SupplierName          string          `json:"supplierName"`
	SubmissionChannel     string          `json:"submissionChannel"`
	IntermediaryName      *string         `json:"intermediaryName"`
	IntermediaryTIN       *string         `json:"intermediaryTin"`
	IntermediaryROB       *string         `json:"intermediaryRob"`
	BuyerName             string          `json:"buyerName"`
	BuyerTIN              string          `json:"buyerTin"`
}

// recent shows d as Get Recent Documents does.
func (d docRow) recent(now time.Time) recentDocument {
	sum := d.summary(now)
	out := recentDocument{UUID: sum.UUID, SubmissionUID: sum.SubmissionUID, LongID: sum.LongID, InternalID: sum.InternalID,
		TypeName: sum.TypeName, TypeVersionName: sum.TypeVersionName, IssuerTIN: sum.IssuerTIN, IssuerName: sum.IssuerName,
		ReceiverID: sum.ReceiverID, ReceiverName: sum.ReceiverName, DateTimeIssued: sum.DateTimeIssued,
		DateTimeReceived: sum.DateTimeReceived, DateTimeValidated: sum.DateTimeValidated,
		TotalSales: sum.TotalExcludingTax, TotalDiscount: sum.TotalDiscount, NetAmount: sum.TotalNetAmount, Total: sum.TotalPayableAmount,
		Status: sum.Status, CancelDateTime: sum.CancelDateTime, RejectRequestDateTime: sum.RejectRequestDateTime,
		DocumentStatusReason: sum.DocumentStatusReason, SubmissionChannel: "ERP",
		SupplierTIN: d.IssuerTIN, SupplierName: d.IssuerName, BuyerTIN: d.ReceiverTIN, BuyerName: d.ReceiverName}
	if code, _ := strconv.Atoi(d.TypeCode); code >= 11 {
		// Self-billed: the buyer issues.
		out.SupplierTIN, out.SupplierName, out.BuyerTIN, out.BuyerName = d.ReceiverTIN, d.ReceiverName, d.IssuerTIN, d.IssuerName
	}
	return out
}

// handleRecent is GET /api/v1.0/documents/recent: the caller's documents
// (InvoiceDirection Sent, the default, or Received) received in the last
// 31 days, newest first, with Search's filters (the date windows
// optional), at most 10,000; {result, metadata: {totalPages, totalCount}}.
func (s *Server) handleRecent(w http.ResponseWriter, r *http.Request, c caller) {
	pageNo, pageSize, ok := paging(w, r)
	if !ok {
		return
	}
	now := s.now()
	q, ok := docFilter(w, r, c, now, false)
	if !ok {
		return
	}
	q.add("received_at >= " + q.arg(micros(now.Add(-recentWindow))))
	docs, total, err := s.pageDocs(r, q, pageNo, pageSize)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	result := make([]recentDocument, 0, len(docs))
	for _, d := range docs {
		result = append(result, d.recent(now))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"result":   result,
		"metadata": map[string]int{"totalPages": (total + pageSize - 1) / pageSize, "totalCount": total},
	})
}
