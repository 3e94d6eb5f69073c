package sandbox_test

import (
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

func TestGetSubmission(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		res := c.submit(invoice(invoiceOpts{code: "S-1", issued: now}), invoice(invoiceOpts{code: "S-2", issued: now}),
			invoice(invoiceOpts{code: "S-3", issued: now, typeCode: "11"}))
		uid := *res.SubmissionUID
		if len(uid) != 26 {
			t.Errorf("submissionUid %q", uid)
		}
		r := c.do(http.MethodGet, "/api/v1.0/documentsubmissions/"+uid+"?pageNo=2&pageSize=2", nil)
		s := r.JSON(t)
		docs, _ := s["documentSummary"].([]any)
		if r.Status != http.StatusOK || s["submissionUid"] != uid || s["documentCount"] != float64(3) || s["overallStatus"] != "valid" ||
			s["dateTimeReceived"] != now.Format(time.RFC3339) || len(docs) != 1 {
			t.Fatalf("page 2: %d %s", r.Status, r.Body)
		}
		d := docs[0].(map[string]any)
		want := map[string]any{
			"uuid": res.Accepted[2].UUID, "submissionUid": uid, "internalId": "S-3", "typeName": "Self-billed Invoice",
			"typeVersionName": "1.0", "issuerTin": supplierTIN, "issuerName": "Buyer Name", "receiverId": buyerTIN,
			"receiverName": "Supplier Sdn. Bhd.", "dateTimeIssued": now.Format(time.RFC3339), "status": "Valid",
			"totalExcludingTax": float64(100), "totalPayableAmount": float64(106), "totalNetAmount": float64(100),
			"totalDiscount": float64(0), "createdByUserId": "", "cancelDateTime": nil, "rejectRequestDateTime": nil,
			"documentStatusReason": nil,
		}
		for k, v := range want {
			if d[k] != v {
				t.Errorf("%s = %v, want %v", k, d[k], v)
			}
		}
		for _, tc := range []struct {
			name, path string
			c          *client
			status     int
		}{
			{"another client", "/api/v1.0/documentsubmissions/" + uid, login(t, hs.URL, "erp-2", ""), 403},
			{"unknown", "/api/v1.0/documentsubmissions/AAAAAAAAAAAAAAAAAAAAAAAAAA", c, 404},
			{"NUL", "/api/v1.0/documentsubmissions/%00", c, 404},
			{"bad pageSize", "/api/v1.0/documentsubmissions/" + uid + "?pageSize=101", c, 400},
			{"bad pageNo", "/api/v1.0/documentsubmissions/" + uid + "?pageNo=x", c, 400},
		} {
			if r := tc.c.do(http.MethodGet, tc.path, nil); r.Status != tc.status {
				t.Errorf("%s: %d %s, want %d", tc.name, r.Status, r.Body, tc.status)
			}
		}
	})
}

func TestRawAndDetails(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		good := invoice(invoiceOpts{code: "RD-1", issued: now})
		bad := invoice(invoiceOpts{code: "RD-2", issued: now.Add(-100 * time.Hour)})
		res := c.submit(good, bad)
		validID, invalidID := res.Accepted[0].UUID, res.Accepted[1].UUID

		r := c.do(http.MethodGet, "/api/v1.0/documents/"+validID+"/raw", nil)
		raw := r.JSON(t)
		if r.Status != http.StatusOK || raw["document"] != string(good.body) || raw["uuid"] != validID || raw["status"] != "Valid" || raw["longId"] == nil {
			t.Errorf("raw: %d %s", r.Status, r.Body)
		}
		if r := c.do(http.MethodGet, "/api/v1.0/documents/"+invalidID+"/raw", nil); r.Status != http.StatusNotFound {
			t.Errorf("raw of an Invalid document: %d, want 404", r.Status)
		}
		d := c.details(invalidID)
		vr := d["validationResults"].(map[string]any)
		steps := vr["validationSteps"].([]any)
		if d["status"] != "Invalid" || vr["status"] != "Invalid" || len(steps) != 6 {
			t.Fatalf("details: %v", d)
		}
		core := steps[1].(map[string]any)
		e0 := core["error"].(map[string]any)
		inner := e0["innerError"].([]any)[0].(map[string]any)
		if core["name"] != "Step02-Core Fields Validator" || core["status"] != "Invalid" || e0["errorCode"] != "Error02" ||
			e0["error"] != "Core Fields Validator" || inner["errorCode"] != "CF321" || inner["errorMs"] == nil || inner["propertyPath"] == nil {
			t.Errorf("core fields step: %v", core)
		}

		// Others see nothing; the receiver (the client bound to the buyer's
		// TIN) sees Valid documents; an intermediary acting for the buyer
		// does not (it sees only what it submitted).
		stranger := loginAs(t, hs.URL, "erp-2", "C30000000010")
		receiver := loginAs(t, hs.URL, "erp-3", buyerTIN)
		agent := login(t, hs.URL, "agent", buyerTIN)
		for _, tc := range []struct {
			name   string
			c      *client
			path   string
			status int
		}{
			{"stranger raw", stranger, "/api/v1.0/documents/" + validID + "/raw", 404},
			{"stranger details", stranger, "/api/v1.0/documents/" + validID + "/details", 404},
			{"receiver raw", receiver, "/api/v1.0/documents/" + validID + "/raw", 200},
			{"receiver details", receiver, "/api/v1.0/documents/" + validID + "/details", 200},
			{"receiver details of Invalid", receiver, "/api/v1.0/documents/" + invalidID + "/details", 404},
			{"intermediary for the receiver", agent, "/api/v1.0/documents/" + validID + "/raw", 404},
			{"unknown", c, "/api/v1.0/documents/AAAAAAAAAAAAAAAAAAAAAAAAAA/details", 404},
			{"unknown route", c, "/api/v1.0/nothing", 404},
		} {
			if r := tc.c.do(http.MethodGet, tc.path, nil); r.Status != tc.status {
				t.Errorf("%s: %d %s, want %d", tc.name, r.Status, r.Body, tc.status)
			}
		}
	})
}

// TestPortal: the validation link of a Valid document opens a page.
func TestPortal(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		sb, hs := e.server(func(o *sandbox.Options) { o.PortalURL = "http://example.test/sandbox/portal/" })
		if sb.PortalURL() != "http://example.test/sandbox/portal" {
			t.Errorf("PortalURL = %q", sb.PortalURL())
		}
		if def := sandbox.New(sandbox.Options{}).PortalURL(); def != sandbox.DefaultPortalURL {
			t.Errorf("default PortalURL = %q", def)
		}
		c := login(t, hs.URL, "erp-1", "")
		id := c.submitOne(invoice(invoiceOpts{code: "P-1", issued: e.clock.Now()}))
		longID, _ := c.details(id)["longId"].(string)
		anon := newClient(t, hs.URL)
		r := anon.do(http.MethodGet, sandbox.PortalPath+"/"+id+"/share/"+longID, nil)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), id) || !strings.Contains(string(r.Body), "Valid") {
			t.Errorf("portal: %d %s", r.Status, r.Body)
		}
		if r := anon.do(http.MethodGet, sandbox.PortalPath+"/"+id+"/share/WRONG", nil); r.Status != http.StatusNotFound {
			t.Errorf("portal with a wrong longId: %d", r.Status)
		}
		if r := anon.do(http.MethodGet, sandbox.PortalPath+"/ZZZZZZZZZZZZZZZZZZZZZZZZZZ/share/"+longID, nil); r.Status != http.StatusNotFound {
			t.Errorf("portal of an unknown document: %d", r.Status)
		}
	})
}

// TestPortalDatabaseError: a failing database is a plain 500, not a 404,
// and tells nothing of the failure.
func TestPortalDatabaseError(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		closed, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			t.Fatal(err)
		}
		closed.Close()
		_, hs := e.server(func(o *sandbox.Options) {
			o.ReadDB = closed
			o.Logger = slog.New(slog.DiscardHandler)
		})
		r := newClient(t, hs.URL).do(http.MethodGet, sandbox.PortalPath+"/ZZZZZZZZZZZZZZZZZZZZZZZZZZ/share/X", nil)
		if r.Status != http.StatusInternalServerError || strings.Contains(string(r.Body), "closed") {
			t.Errorf("portal on a closed database: %d %q, want a plain 500", r.Status, r.Body)
		}
	})
}
