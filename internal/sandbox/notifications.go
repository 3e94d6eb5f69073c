package sandbox

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// notificationTypes are the notification types the sandbox sends (of the
// authority's list), by id.
var notificationTypes = map[string]string{
	"6":  "Document received",
	"7":  "Document validated",
	"8":  "Document cancelled",
	"15": "Document rejection initiated",
}

// otherNotificationTypes are the authority's other types: accepted as a
// filter, never sent by the sandbox.
var otherNotificationTypes = map[string]bool{"3": true, "10": true, "11": true, "26": true, "33": true, "34": true, "35": true}

// notificationStatuses are the delivery statuses by id; the sandbox's
// notifications are all delivered (4).
var notificationStatuses = map[string]string{"1": "new", "2": "pending", "3": "batched", "4": "delivered", "5": "error"}

// deliveryAttempt is one attempt to deliver a notification.
type deliveryAttempt struct {
	AttemptDateTime string `json:"attemptDateTime"`
	Status          string `json:"status"`
	StatusDetails   string `json:"statusDetails"`
}

// notification is one of the caller's notifications.
type notification struct {
	NotificationID         string            `json:"notificationId"`
	ReceiverName           string            `json:"receiverName"`
	NotificationDeliveryID string            `json:"notificationDeliveryId"`
	CreationDateTime       string            `json:"creationDateTime"`
	ReceivedDateTime       string            `json:"receivedDateTime"`
	NotificationSubject    string            `json:"notificationSubject"`
	DeliveredDateTime      string            `json:"deliveredDateTime"`
	TypeID                 string            `json:"typeId"`
	TypeName               string            `json:"typeName"`
	FinalMessage           string            `json:"finalMessage"`
	Address                string            `json:"address"`
	Language               string            `json:"language"`
	Status                 string            `json:"status"`
	DeliveryAttempts       []deliveryAttempt `json:"deliveryAttempts"`
}

// handleNotifications is GET /api/v1.0/notifications/taxpayer: the
// caller's notifications, newest first, made from its documents' events:
// each of its documents validated (7), each document received (6),
// cancelled (8) and each rejection requested (15) on either side. Filters
// dateFrom, dateTo, type, language (en, ms), status; pageNo, pageSize (at
// most 100); {result, metadata: {hasNext}}.
func (s *Server) handleNotifications(w http.ResponseWriter, r *http.Request, c caller) {
	pageNo, pageSize, ok := paging(w, r)
	if !ok {
		return
	}
	now := s.now()
	q := &where{}
	cid, recv, at := q.arg(c.ClientID), q.arg(orNone(c.receiver())), q.arg(micros(now))
	mine := "client_id = " + cid
	received := "receiver_tin = " + recv + " AND client_id <> " + cid + " AND verdict = 'Valid'"
	union := `SELECT '7' AS type_id, uuid, internal_id, issuer_name, validated_at AS happened_at FROM sandbox_documents
			WHERE ` + mine + ` AND verdict = 'Valid' AND validated_at <= ` + at + `
		UNION ALL SELECT '6', uuid, internal_id, issuer_name, validated_at FROM sandbox_documents
			WHERE ` + received + ` AND validated_at <= ` + at + `
		UNION ALL SELECT '8', uuid, internal_id, issuer_name, cancelled_at FROM sandbox_documents
			WHERE (` + mine + ` OR (` + received + `)) AND cancelled_at IS NOT NULL
		UNION ALL SELECT '15', uuid, internal_id, issuer_name, reject_requested_at FROM sandbox_documents
			WHERE (` + mine + ` OR (` + received + `)) AND reject_requested_at IS NOT NULL`
	q.add("1 = 1")
	for _, p := range []struct {
		name, op string
		end      bool
	}{{"dateFrom", ">=", false}, {"dateTo", "<", true}} {
		if v := param(r, p.name); v != "" {
			t, ok := parseDateTime(v, p.end)
			if !ok {
				badArgument(w, p.name, p.name+" must be a date and time (RFC 3339)")
				return
			}
			q.add("happened_at " + p.op + " " + q.arg(micros(t)))
		}
	}
	if v := param(r, "type"); v != "" {
		switch {
		case notificationTypes[v] != "":
			q.add("type_id = " + q.arg(v))
		case otherNotificationTypes[v]:
			q.add("1 = 0")
		default:
			badArgument(w, "type", "type must be a notification type id (3, 6, 7, 8, 10, 11, 15, 26, 33, 34, 35)")
			return
		}
	}
	switch v := strings.ToLower(param(r, "language")); v {
	case "", "en":
	case "ms":
		q.add("1 = 0")
	default:
		badArgument(w, "language", "language must be en or ms")
		return
	}
	if v := strings.ToLower(param(r, "status")); v != "" {
		name, known := notificationStatuses[v]
		if !known {
			for _, n := range notificationStatuses {
				if n == v {
					name, known = n, true
				}
			}
		}
		if !known {
			badArgument(w, "status", "status must be a notification status (1 new, 2 pending, 3 batched, 4 delivered, 5 error)")
			return
		}
		if name != "delivered" {
			q.add("1 = 0")
		}
	}
	query := `SELECT type_id, uuid, internal_id, issuer_name, happened_at FROM (` + union + `) n WHERE ` + q.String() +
		` ORDER BY happened_at DESC, uuid DESC, type_id LIMIT ` + q.arg(pageSize+1) + ` OFFSET ` + q.arg((pageNo-1)*pageSize)
	rows, err := s.rdb.QueryContext(r.Context(), query, q.args...)
	if err != nil {
		s.internalError(w, r, fmt.Errorf("read notifications: %w", err))
		return
	}
	defer rows.Close()
	result := []notification{}
	for rows.Next() {
		var typeID, uuid, internalID, issuerName string
		var happened int64
		if err := rows.Scan(&typeID, &uuid, &internalID, &issuerName, &happened); err != nil {
			s.internalError(w, r, fmt.Errorf("read notification: %w", err))
			return
		}
		result = append(result, newNotification(c, typeID, uuid, internalID, issuerName, fromMicros(happened)))
	}
	if err := rows.Err(); err != nil {
		s.internalError(w, r, fmt.Errorf("read notifications: %w", err))
		return
	}
	hasNext := len(result) > pageSize
	if hasNext {
		result = result[:pageSize]
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": result, "metadata": map[string]bool{"hasNext": hasNext}})
}

// newNotification is the notification of one event of a document.
func newNotification(c caller, typeID, uuid, internalID, issuerName string, at time.Time) notification {
	id := strings.ToUpper(sha256Hex([]byte(typeID + "/" + uuid + "/" + c.ClientID))[:15])
	when := formatTime(at)
	subject := notificationTypes[typeID]
	var msg string
	switch typeID {
	case "6":
		msg = "Taxpayer " + c.Taxpayer + " has received document " + internalID + " (" + uuid + ") from " + issuerName
	case "7":
		msg = "Document " + internalID + " (" + uuid + ") was validated"
	case "8":
		msg = "Document " + internalID + " (" + uuid + ") was cancelled"
	default:
		msg = "The rejection of document " + internalID + " (" + uuid + ") was requested"
	}
	return notification{NotificationID: id, ReceiverName: c.TIN(), NotificationDeliveryID: id, CreationDateTime: when,
		ReceivedDateTime: when, NotificationSubject: subject, DeliveredDateTime: when, TypeID: typeID, TypeName: subject,
		FinalMessage: msg, Address: "", Language: "en", Status: "delivered",
		DeliveryAttempts: []deliveryAttempt{{AttemptDateTime: when, Status: "delivered", StatusDetails: ""}}}
}

// orNone is v, or a value no TIN has when v is empty.
func orNone(v string) string {
	if v == "" {
		return "-"
	}
	return v
}
