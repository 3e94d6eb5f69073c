package myinvois

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func TestSubmitWire(t *testing.T) {
	docs := []einvoice.OutgoingDocument{
		{CodeNumber: "INV-1", Body: []byte(`{"Invoice":[{"ID":[{"_":"INV-1"}]}]}`)},
		{CodeNumber: "INV-2", Body: []byte(`{"Invoice":[{"ID":[{"_":"INV-2"}]}]}`)},
	}
	for _, uidKey := range []string{"submissionUid", "submissionUID"} {
		t.Run(uidKey, func(t *testing.T) {
			f := newFake(t)
			f.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) {
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				var req struct {
					Documents []map[string]string `json:"documents"`
				}
				readJSON(t, r.Body, &req)
				if len(req.Documents) != len(docs) {
					t.Fatalf("%d documents sent", len(req.Documents))
				}
				for i, d := range req.Documents {
					body, err := base64.StdEncoding.DecodeString(d["document"])
					if err != nil || !bytes.Equal(body, docs[i].Body) {
						t.Errorf("document %d = %q (%v), want the exact bytes", i, body, err)
					}
					sum := sha256.Sum256(docs[i].Body)
					if d["documentHash"] != hex.EncodeToString(sum[:]) {
						t.Errorf("documentHash %d = %q", i, d["documentHash"])
					}
					if d["format"] != "JSON" || d["codeNumber"] != docs[i].CodeNumber {
						t.Errorf("document %d: %v", i, d)
					}
				}
				writeJSON(w, 202, map[string]any{
					uidKey:              "XYE60M8ENDWA7V9TKBXBTGQG10",
					"acceptedDocuments": []any{map[string]any{"uuid": "42S512YACQBRSRHYKBXBTGQG22", "invoiceCodeNumber": "INV-1"}},
					"rejectedDocuments": []any{map[string]any{"invoiceCodeNumber": "INV-2", "error": map[string]any{
						"code": "ValidationError", "message": "Validation Error", "target": "INV-2", "propertyPath": nil,
						"details": []any{map[string]any{"code": nil, "message": "ObjectExpected", "target": "[0]", "propertyPath": "#/Invoice[0]", "details": nil}},
					}}},
				})
			})
			c := New(Options{Logger: testLogger(t)})
			got, err := c.Submit(context.Background(), f.creds(), docs)
			if err != nil {
				t.Fatal(err)
			}
			want := einvoice.SubmitResult{
				SubmissionUID: "XYE60M8ENDWA7V9TKBXBTGQG10",
				Accepted:      []einvoice.AcceptedDocument{{UUID: "42S512YACQBRSRHYKBXBTGQG22", CodeNumber: "INV-1"}},
				Rejected: []einvoice.RejectedDocument{{CodeNumber: "INV-2", Error: einvoice.AuthorityError{
					Code: "ValidationError", Message: "Validation Error", Target: "INV-2",
					Details: []einvoice.AuthorityError{{Message: "ObjectExpected", Target: "[0]", PropertyPath: "#/Invoice[0]"}},
				}}},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("SubmitResult (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubmitDuplicate(t *testing.T) {
	f := newFake(t)
	f.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "600")
		writeJSON(w, 422, map[string]any{"error": map[string]any{"code": "DuplicateSubmission", "message": "Duplicate submission"}})
	})
	c := New(Options{Logger: testLogger(t)})
	_, err := c.Submit(context.Background(), f.creds(), []einvoice.OutgoingDocument{{CodeNumber: "INV-1", Body: []byte(`{}`)}})
	ce := callErr(t, err)
	if ce.Status != 422 || ce.Body.Code != "DuplicateSubmission" || ce.RetryAfter.Seconds() != 600 || ce.Temporary() || ce.Unanswered() {
		t.Errorf("CallError = %+v", ce)
	}
}

func TestSubmitLimitsRefusedBeforeSending(t *testing.T) {
	f := newFake(t)
	var submits atomic.Int32
	f.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) { submits.Add(1) })
	c := New(Options{Logger: testLogger(t)})
	doc := func(n int) einvoice.OutgoingDocument {
		return einvoice.OutgoingDocument{CodeNumber: "INV", Body: bytes.Repeat([]byte("a"), n)}
	}
	many := func(count, size int) []einvoice.OutgoingDocument {
		docs := make([]einvoice.OutgoingDocument, count)
		for i := range docs {
			docs[i] = doc(size)
		}
		return docs
	}
	for name, docs := range map[string][]einvoice.OutgoingDocument{
		"101 documents":          many(101, 10),
		"a document over 300 KB": {doc(10), doc(MaxDocumentSize + 1)},
		"over 5 MB in all":       many(20, MaxDocumentSize), // 20 × 300 KB × 4/3 ≈ 8 MB
	} {
		_, err := c.Submit(context.Background(), f.creds(), docs)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
		if _, ok := einvoice.AsCallError(err); ok {
			t.Errorf("%s: a CallError, want a plain error", name)
		}
	}
	if _, err := c.Submit(context.Background(), f.creds(), nil); err == nil {
		t.Error("no documents: no error")
	}
	if f.logins.Load() != 0 || submits.Load() != 0 {
		t.Errorf("%d logins and %d submits, want none", f.logins.Load(), submits.Load())
	}

	// At the limits exactly, the request goes out.
	f2 := newFake(t)
	f2.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Documents []json.RawMessage `json:"documents"`
		}
		readJSON(t, r.Body, &req)
		writeJSON(w, 202, map[string]any{"submissionUid": "S", "acceptedDocuments": []any{}, "rejectedDocuments": []any{}})
	})
	if _, err := c.Submit(context.Background(), f2.creds(), many(100, 100)); err != nil {
		t.Errorf("100 documents: %v", err)
	}
	if _, err := c.Submit(context.Background(), f2.creds(), many(1, MaxDocumentSize)); err != nil {
		t.Errorf("a 300 KB document: %v", err)
	}
}

func TestSplit(t *testing.T) {
	mk := func(count, size int) []einvoice.OutgoingDocument {
		docs := make([]einvoice.OutgoingDocument, count)
		for i := range docs {
			docs[i] = einvoice.OutgoingDocument{CodeNumber: "INV", Body: bytes.Repeat([]byte("a"), size)}
		}
		return docs
	}
	sizes := func(groups [][]einvoice.OutgoingDocument) []int {
		var n []int
		for _, g := range groups {
			n = append(n, len(g))
		}
		return n
	}
	groups, err := Split(mk(250, 100))
	if err != nil || !cmp.Equal(sizes(groups), []int{100, 100, 50}) {
		t.Errorf("250 small: %v, %v", sizes(groups), err)
	}
	// 300 KB documents: 400 KB encoded each, 12 fit in 5 MB.
	groups, err = Split(mk(30, MaxDocumentSize))
	if err != nil || !cmp.Equal(sizes(groups), []int{12, 12, 6}) {
		t.Errorf("30 large: %v, %v", sizes(groups), err)
	}
	for _, g := range groups {
		if _, err := submissionBody(g); err != nil {
			t.Errorf("a group Split made is refused: %v", err)
		}
	}
	if _, err := Split(mk(1, MaxDocumentSize+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one over 300 KB: %v", err)
	}
	if groups, err := Split(nil); err != nil || len(groups) != 0 {
		t.Errorf("none: %v, %v", groups, err)
	}
}

func oneDoc() []einvoice.OutgoingDocument {
	return []einvoice.OutgoingDocument{{CodeNumber: "INV-1", Body: []byte(`{}`)}}
}

func TestEncodedSizeMatchesBody(t *testing.T) {
	for _, d := range []einvoice.OutgoingDocument{
		{CodeNumber: "INV-1", Body: []byte("a")},
		{CodeNumber: `INV/"2"<&>é`, Body: bytes.Repeat([]byte{0xff, 0, '"'}, 1001)},
		{CodeNumber: "", Body: nil},
	} {
		var buf bytes.Buffer
		if err := appendDocument(&buf, d); err != nil {
			t.Fatal(err)
		}
		n, err := encodedSize(d)
		if err != nil || n != buf.Len() {
			t.Errorf("%q: encodedSize %d, written %d (%v)", d.CodeNumber, n, buf.Len(), err)
		}
		var back map[string]string
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["codeNumber"] != d.CodeNumber || back["format"] != "JSON" {
			t.Errorf("%q: wrote %s (%v)", d.CodeNumber, buf.Bytes(), err)
		}
		body, err := submissionBody([]einvoice.OutgoingDocument{d, d})
		if err != nil || len(body) != submissionOverhead+2*n+1 {
			t.Errorf("%q: body of 2 is %d bytes, want %d (%v)", d.CodeNumber, len(body), submissionOverhead+2*n+1, err)
		}
	}
}
