package e2etest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// StartLifecycleService runs serve for the submission tests, with the
// untyped client.
func StartLifecycleService(t *testing.T, dsn string, args ...string) (*Service, *RawClient) {
	t.Helper()
	svc, _ := StartLifecycleAPI(t, dsn, args...)
	return svc, svc.Client(t, svc.DemoKey)
}

// StartLifecycleAPI runs serve for the submission tests, the tenant's
// profile set, with the typed client.
func StartLifecycleAPI(t *testing.T, dsn string, args ...string) (*Service, *client.Client) {
	t.Helper()
	svc := StartService(t, dsn, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0", "--sandbox-faults"}, args...)...)
	c := svc.API(t, svc.DemoKey)
	p, err := c.Profile.Update(t.Context(), ProfileOf(t, SampleProfile()), nil)
	Must(t, p, err)
	return svc, c
}

// TypedBody is a request body written as a map (the shared samples of the
// package) as the client's type T, for a typed call. The test ends when T
// cannot carry the body as it is (a field the client lacks or names
// otherwise, a value it changes): the request would not be the sample.
func TypedBody[T any](t *testing.T, body map[string]any) *T {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode %v: %v", body, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%T cannot carry %s: %v", v, raw, err)
	}
	back, err := json.Marshal(&v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	var want, got map[string]any
	if err := errors.Join(json.Unmarshal(raw, &want), json.Unmarshal(back, &got)); err != nil {
		t.Fatalf("decode %T: %v", v, err)
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Fatalf("%T sends %s as %v, the sample has %v: a gap of the client", v, k, got[k], w)
		}
	}
	return &v
}

// DocOf is typedBody of a document of the kind (which Create needs).
func DocOf(t *testing.T, kind client.DocumentType, body map[string]any) *client.Document {
	t.Helper()
	d := TypedBody[client.Document](t, body)
	d.Type = kind
	return d
}

// PartyOf is typedBody of a buyer or an on-behalf seller.
func PartyOf(t *testing.T, body map[string]any) *client.Party {
	t.Helper()
	return TypedBody[client.Party](t, body)
}

// ProfileOf is typedBody of the tenant's profile.
func ProfileOf(t *testing.T, body map[string]any) *client.Profile {
	t.Helper()
	return TypedBody[client.Profile](t, body)
}

// SandboxStats reads the built-in sandbox's own count of what it received.
type SandboxStats struct {
	Submissions  int            `json:"submissions"`
	Documents    int            `json:"documents"`
	ByCodeNumber map[string]int `json:"byCodeNumber"`
}

func (s *Service) SandboxStats(t *testing.T) SandboxStats {
	t.Helper()
	resp, err := http.Get(s.URL + "/sandbox/sandbox/stats")
	if err != nil {
		t.Fatalf("sandbox stats: %v", err)
	}
	defer resp.Body.Close()
	var st SandboxStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("sandbox stats: %d %v", resp.StatusCode, err)
	}
	return st
}

// SentOnce checks the sandbox received each serial exactly once.
func (st SandboxStats) SentOnce(t *testing.T, serials ...string) {
	t.Helper()
	for _, s := range serials {
		n := 0
		for k, v := range st.ByCodeNumber {
			if k == s || strings.HasSuffix(k, "/"+s) {
				n += v
			}
		}
		if n != 1 {
			t.Errorf("the sandbox received %s %d times, want exactly once (%v)", s, n, st.ByCodeNumber)
		}
	}
}

// Fault switches a fault of the sandbox on.
func (s *Service) Fault(t *testing.T, f map[string]any) {
	t.Helper()
	body, _ := json.Marshal(f)
	resp, err := http.Post(s.URL+"/sandbox/sandbox/faults", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("sandbox fault: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("sandbox fault %v: HTTP %d", f, resp.StatusCode)
	}
}

// ClearFaults switches every fault off.
func (s *Service) ClearFaults(t *testing.T) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", s.URL+"/sandbox/sandbox/faults", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("clear faults: %v", err)
	}
	resp.Body.Close()
}

// ReadyInvoiceDoc is readyInvoice through the typed client.
func ReadyInvoiceDoc(t *testing.T, c *client.Client, serial, buyerID string) string {
	t.Helper()
	body := SingleLineBody(serial)
	body["buyerId"] = buyerID
	d, err := c.Documents.Create(t.Context(), DocOf(t, client.TypeInvoice, body))
	id := Must(t, d, err).ID
	WantValidationPassed(t, c, serial, id)
	return id
}

// Want200 checks that the service answered a submission 200, its outcome
// known (not a pending 202).
func Want200(t *testing.T, sub *client.Submission) *client.Submission {
	t.Helper()
	if sub.Pending {
		t.Errorf("submit %s: 202 pending %+v, want 200", sub.ID, sub)
	}
	return sub
}

// WaitStatusTyped is waitStatus through the typed client.
func WaitStatusTyped(t *testing.T, c *client.Client, id string, want client.Status, within time.Duration) *client.SubmissionStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	var st *client.SubmissionStatus
	for {
		s, err := c.Documents.Status(t.Context(), id)
		st = Must(t, s, err)
		if st.Status == want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st.Status != want {
		job := "no job"
		if st.Job != nil {
			job = fmt.Sprintf("job %+v", *st.Job)
		}
		t.Fatalf("document %s is %v after %s, want %s: %+v; %s", id, st.Status, within, want, st, job)
	}
	return st
}

// WantValidStatus is wantValid of a typed status result.
func WantValidStatus(t *testing.T, what string, st *client.SubmissionStatus) {
	t.Helper()
	uuid, long := st.DocumentUUID, st.DocumentLongID
	if len(uuid) != 26 || strings.ToUpper(uuid) != uuid || len(long) < 26 || st.ValidatedAt == nil {
		t.Errorf("%s: status = %+v, want a 26-character uuid, a long id and validated_at", what, st)
	}
	if u := st.ValidationURL; !strings.HasSuffix(u, "/"+uuid+"/share/"+long) {
		t.Errorf("%s: validation_url = %q, want .../%s/share/%s", what, u, uuid, long)
	}
}
