package sandbox_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/sandbox"
)

// TestVerdictAfterDelay: a document stays Submitted for Delay, then shows
// its verdict, validated at received + Delay.
func TestVerdictAfterDelay(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server(func(o *sandbox.Options) { o.Delay = 30 * time.Second })
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		res := c.submit(invoice(invoiceOpts{code: "V-1", issued: now}), invoice(invoiceOpts{code: "V-2", issued: now, buyer: "IG999999999"}))
		uid := *res.SubmissionUID
		get := func() map[string]any {
			r := c.do(http.MethodGet, "/api/v1.0/documentsubmissions/"+uid, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("get submission: %d %s", r.Status, r.Body)
			}
			return r.JSON(t)
		}
		s := get()
		sum := s["documentSummary"].([]any)[0].(map[string]any)
		if s["overallStatus"] != "in progress" || sum["status"] != "Submitted" || sum["longId"] != nil || sum["dateTimeValidated"] != nil {
			t.Errorf("before the delay: overall %v, document %v", s["overallStatus"], sum)
		}
		if d := c.details(res.Accepted[0].UUID); d["validationResults"].(map[string]any)["status"] != "Submitted" {
			t.Errorf("details before the delay: %v", d["validationResults"])
		}
		e.clock.Advance(29 * time.Second)
		if got := c.status(res.Accepted[0].UUID); got != "Submitted" {
			t.Errorf("after 29 s: %s", got)
		}
		e.clock.Advance(time.Second)
		s = get()
		docs := s["documentSummary"].([]any)
		valid, invalid := docs[0].(map[string]any), docs[1].(map[string]any)
		if s["overallStatus"] != "partially valid" || valid["status"] != "Valid" || invalid["status"] != "Invalid" {
			t.Fatalf("after the delay: %v", s)
		}
		if id, _ := valid["longId"].(string); len(id) != 40 {
			t.Errorf("longId = %q, want 40 characters", id)
		}
		if invalid["longId"] != nil {
			t.Errorf("Invalid document has a longId: %v", invalid["longId"])
		}
		if valid["dateTimeValidated"] != now.Add(30*time.Second).Format(time.RFC3339) || valid["dateTimeReceived"] != now.Format(time.RFC3339) {
			t.Errorf("received %v validated %v, want %v + 30 s", valid["dateTimeReceived"], valid["dateTimeValidated"], now)
		}
	})
}

// TestInvalidRules covers each rule that makes an accepted document Invalid.
func TestInvalidRules(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		badSig, badDigest := []byte("BAD-SIGNATURE"), []byte("BAD-DIGEST")
		_, hs := e.server(func(o *sandbox.Options) {
			o.VerifySignature = func(doc []byte) error {
				if bytes.Contains(doc, badSig) {
					return errors.New("DS322: document digest does not match")
				}
				if bytes.Contains(doc, badDigest) {
					return fmt.Errorf("verify: %w", &dsig.VerifyError{Code: dsig.CodeDocDigest, Message: "document digest does not match"})
				}
				return nil
			}
		})
		c := login(t, hs.URL, "erp-1", "")
		other := loginAs(t, hs.URL, "erp-2", "C30000000010")
		ghost := loginAs(t, hs.URL, "erp-ghost", "C99999999990")
		now := e.clock.Now()
		original := c.submitOne(invoice(invoiceOpts{code: "ORIG-1", issued: now}))
		invalidOriginal := c.submitOne(invoice(invoiceOpts{code: "ORIG-2", issued: now, buyer: "IG999999999"}))
		othersOriginal := other.submitOne(invoice(invoiceOpts{code: "ORIG-3", issued: now, supplier: "C30000000010"}))

		for _, tc := range []struct {
			name string
			d    doc
			want []string // failed step/inner code; nil: Valid
		}{
			{"now", invoice(invoiceOpts{code: "R-1", issued: now}), nil},
			{"72 hours old", invoice(invoiceOpts{code: "R-2", issued: now.Add(-72 * time.Hour)}), nil},
			{"older than 72 hours", invoice(invoiceOpts{code: "R-3", issued: now.Add(-72*time.Hour - time.Second)}), []string{"Step02-Core Fields Validator/CF321"}},
			{"in the future", invoice(invoiceOpts{code: "R-4", issued: now.Add(time.Second)}), []string{"Step02-Core Fields Validator/CF322"}},
			{"bad signature on 1.1", invoice(invoiceOpts{code: "R-5", version: "1.1", issued: now, note: string(badSig)}), []string{"Step08-Document Signature Validator/DS300"}},
			{"digest mismatch on 1.3 keeps the verifier's code", invoice(invoiceOpts{code: "R-17", version: "1.3", issued: now, note: string(badDigest)}), []string{"Step08-Document Signature Validator/DS322"}},
			{"bad signature on 1.0 is not checked", invoice(invoiceOpts{code: "R-6", version: "1.0", issued: now, note: string(badSig)}), nil},
			{"supplier not found", invoice(invoiceOpts{code: "R-7", issued: now, supplier: "C99999999990"}), []string{"Step05-Taxpayer Validator/ERR405"}},
			{"buyer not found", invoice(invoiceOpts{code: "R-8", issued: now, buyer: "IG999999999999"}), []string{"Step05-Taxpayer Validator/ERR406"}},
			{"note of a Valid original", invoice(invoiceOpts{code: "R-9", typeCode: "02", issued: now, refs: []string{original}}), nil},
			{"note of a pre-e-invoicing original", invoice(invoiceOpts{code: "R-10", typeCode: "03", issued: now, refs: []string{"NA"}}), nil},
			{"note of nothing", invoice(invoiceOpts{code: "R-11", typeCode: "04", issued: now}), []string{"Step06-Referenced Documents Validator/RD304"}},
			{"unknown original", invoice(invoiceOpts{code: "R-12", typeCode: "02", issued: now, refs: []string{"ZZZZZZZZZZZZZZZZZZZZZZZZZZ"}}), []string{"Step06-Referenced Documents Validator/RD301"}},
			{"Invalid original", invoice(invoiceOpts{code: "R-13", typeCode: "02", issued: now, refs: []string{invalidOriginal}}), []string{"Step06-Referenced Documents Validator/RD302"}},
			{"another issuer's original", invoice(invoiceOpts{code: "R-14", typeCode: "02", issued: now, refs: []string{othersOriginal}}), []string{"Step06-Referenced Documents Validator/RD303"}},
			{"unreadable issue time", withIssueTime(invoice(invoiceOpts{code: "R-16", issued: now}), "25:61:00Z"), []string{"Step02-Core Fields Validator/CF320"}},
			{"several failures", invoice(invoiceOpts{code: "R-15", issued: now.Add(time.Hour), buyer: "IG999999999"}), []string{"Step02-Core Fields Validator/CF322", "Step05-Taxpayer Validator/ERR406"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := c
				if tc.d.code == "R-7" {
					c = ghost // the issuer must be the logged-in taxpayer
				}
				uuid := c.submitOne(tc.d)
				got := c.failedSteps(uuid)
				if !slices.Equal(got, tc.want) {
					t.Errorf("failed steps = %v, want %v", got, tc.want)
				}
				want := "Valid"
				if tc.want != nil {
					want = "Invalid"
				}
				d := c.details(uuid)
				if d["status"] != want || d["validationResults"].(map[string]any)["status"] != want {
					t.Errorf("status %v / %v, want %s", d["status"], d["validationResults"], want)
				}
			})
		}
	})
}

// TestDuplicateDocument: DS302 for the same type, codeNumber, issue date and
// time and issuer within two hours of a document that was not Invalid.
func TestDuplicateDocument(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		badSig := []byte("BAD-SIGNATURE")
		_, hs := e.server(func(o *sandbox.Options) {
			o.VerifySignature = func(doc []byte) error {
				if bytes.Contains(doc, badSig) {
					return errors.New("bad signature")
				}
				return nil
			}
		})
		c := login(t, hs.URL, "erp-1", "")
		issued := e.clock.Now()
		d := invoice(invoiceOpts{code: "DUP-1", version: "1.1", issued: issued})
		// An Invalid first copy does not count.
		bad := invoice(invoiceOpts{code: "DUP-1", version: "1.1", issued: issued, note: string(badSig)})
		if got := c.status(c.submitOne(bad)); got != "Invalid" {
			t.Fatalf("bad copy: %s", got)
		}
		first := c.submitOne(d)
		if got := c.status(first); got != "Valid" {
			t.Fatalf("first: %s %v", got, c.failedSteps(first))
		}
		// The same document again (in another payload, so not a 422).
		e.clock.Advance(time.Hour)
		res := c.submit(d, invoice(invoiceOpts{code: "OTHER-1", issued: e.clock.Now()}))
		second := res.Accepted[0].UUID
		if got := c.failedSteps(second); !slices.Equal(got, []string{"Step03-Duplicated Submission Validator/DS302"}) {
			t.Errorf("second copy: %v", got)
		}
		vr := c.details(second)["validationResults"].(map[string]any)
		for _, s := range vr["validationSteps"].([]any) {
			st := s.(map[string]any)
			if st["status"] == "Invalid" {
				inner := st["error"].(map[string]any)["innerError"].([]any)[0].(map[string]any)
				if msg, _ := inner["error"].(string); !bytes.Contains([]byte(msg), []byte(first)) {
					t.Errorf("DS302 message %q does not name the first document %s", msg, first)
				}
			}
		}
		// Another type code or another issue time is not a duplicate.
		e.clock.Advance(time.Minute)
		if got := c.status(c.submitOne(invoice(invoiceOpts{code: "DUP-1", typeCode: "11", version: "1.1", issued: issued}))); got != "Valid" {
			t.Errorf("self-billed with the same number: %s", got)
		}
		if got := c.status(c.submitOne(invoice(invoiceOpts{code: "DUP-1", version: "1.1", issued: issued.Add(time.Second)}))); got != "Valid" {
			t.Errorf("another issue time: %s", got)
		}
		// Two hours after the first, the key is free again (the issue time is
		// still within 72 hours).
		e.clock.Advance(time.Hour)
		third := c.submitOne(d)
		if got := c.failedSteps(third); got != nil {
			t.Errorf("after two hours: %v", got)
		}
	})
}

// withIssueTime replaces a document's IssueTime.
func withIssueTime(d doc, issueTime string) doc {
	var root map[string]any
	if err := json.Unmarshal(d.body, &root); err != nil {
		panic(err)
	}
	setLeaf(root["Invoice"].([]any)[0].(map[string]any), "IssueTime", issueTime)
	return docOf(d.code, root)
}
