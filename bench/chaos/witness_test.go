package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeAuthority answers submits by their first codeNumber: "DROP..." loses
// the connection, "SLOW..." answers after a second, others are accepted.
func fakeAuthority(t *testing.T) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1.0/documentsubmissions/" {
			w.WriteHeader(http.StatusOK)
			return
		}
		docs := decodeSubmission(mustRead(t, r.Body))
		code := docs[0].CodeNumber
		switch {
		case strings.HasPrefix(code, "DROP"):
			conn, _, _ := http.NewResponseController(w).Hijack()
			conn.Close()
			return
		case strings.HasPrefix(code, "SLOW"):
			select {
			case <-time.After(time.Second):
			case <-r.Context().Done():
				return
			}
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"submissionUid":"S","acceptedDocuments":[{"uuid":"U-`+code+`","invoiceCodeNumber":"`+code+`"}],"rejectedDocuments":[]}`)
	}))
	t.Cleanup(hs.Close)
	return hs
}

func mustRead(t *testing.T, r io.Reader) []byte {
	b, err := io.ReadAll(r)
	if err != nil {
		t.Error(err)
	}
	return b
}

// submitBody builds a submit body of one document.
func submitBody(code, content string) []byte {
	sum := sha256.Sum256([]byte(content))
	b, _ := json.Marshal(map[string]any{"documents": []any{map[string]any{"format": "JSON", "codeNumber": code,
		"document": base64.StdEncoding.EncodeToString([]byte(content)), "documentHash": hex.EncodeToString(sum[:])}}})
	return b
}

// TestWitness: the witness forwards calls unchanged, passes a dropped
// connection on as a dropped connection (never as an answer of its own),
// and records every submission with its documents and its answer.
func TestWitness(t *testing.T) {
	w, err := startWitness(fakeAuthority(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	hc := &http.Client{Timeout: 300 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(body []byte) (*http.Response, error) {
		resp, err := hc.Post(w.URL+"/api/v1.0/documentsubmissions/", "application/json", bytes.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}

	if resp, err := post(submitBody("OK-1", "doc one")); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Errorf("accepted submission: %v %v", resp, err)
	}
	if resp, err := post(submitBody("DROP-1", "doc two")); err == nil {
		t.Errorf("dropped submission: answered %d, want the connection lost", resp.StatusCode)
	}
	if _, err := post(submitBody("SLOW-1", "doc three")); err == nil {
		t.Error("slow submission answered within the client's timeout")
	}
	if _, err := post(submitBody("OK-1", "doc one")); err != nil {
		t.Error(err)
	}
	resp, err := hc.Get(w.URL + "/api/v1.0/documents/search?x=1")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("search through the witness: %v %v", resp, err)
	}
	resp.Body.Close()

	time.Sleep(100 * time.Millisecond) // the slow call's cancellation reaches the witness
	seen := w.byCodeNumber()
	sum := sha256.Sum256([]byte("doc one"))
	if ok := seen["OK-1"]; ok == nil || ok.Sends != 2 || len(ok.Hashes) != 1 || ok.Hashes[0] != hex.EncodeToString(sum[:]) ||
		len(ok.Accepted) != 2 || ok.Accepted[0] != "U-OK-1" {
		t.Errorf("OK-1: %+v, want 2 sends of one hash, accepted twice as U-OK-1", ok)
	}
	for _, code := range []string{"DROP-1", "SLOW-1"} {
		if x := seen[code]; x == nil || x.Sends != 1 || x.Unanswered != 1 || len(x.Accepted) != 0 {
			t.Errorf("%s: %+v, want one unanswered send", code, x)
		}
	}
	calls, n := w.callCounts()
	if n != 4 || calls["submit 202"] != 2 || calls["submit no answer"] != 2 || calls["search 200"] != 1 {
		t.Errorf("calls %v, %d submissions; want 2 answered, 2 not, 1 search, 4 submissions", calls, n)
	}
}

func TestEndpointOf(t *testing.T) {
	for path, want := range map[string]string{
		"/connect/token":                          "token",
		"/api/v1.0/documentsubmissions/":          "submit",
		"/api/v1.0/documentsubmissions":           "submit",
		"/api/v1.0/documentsubmissions/ABC":       "submission",
		"/api/v1.0/documents/ABC/details":         "details",
		"/api/v1.0/documents/ABC/raw":             "raw",
		"/api/v1.0/documents/search":              "search",
		"/api/v1.0/documents/state/ABC/state":     "cancel",
		"/api/v1.0/taxpayer/validate/C2584563200": "tin",
		"/portal/ABC/share/x":                     "other",
		"/api/v1.0/documenttypes":                 "other",
		"/api/v1.0/documents/recent":              "other",
	} {
		if got := endpointOf(path); got != want {
			t.Errorf("endpointOf(%q) = %q, want %q", path, got, want)
		}
	}
}
