package e2etest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// SecKey creates an API key for the tenant with the admin command.
func SecKey(t *testing.T, dsn, tenantID string, args ...string) string {
	t.Helper()
	code, out, errOut := servetest.Run(t, dsn, append([]string{"key", "create", "--tenant", tenantID}, args...)...)
	key := strings.TrimSpace(out)
	if code != 0 || !servetest.KeyPattern.MatchString(key) {
		t.Fatalf("key create: %d %q %s", code, out, errOut)
	}
	return key
}

// SecTenant creates a tenant and a read-write key for it.
func SecTenant(t *testing.T, dsn, name, tin string) (tenantID, key string) {
	t.Helper()
	code, out, errOut := servetest.Run(t, dsn, "tenant", "create", "--name", name, "--tin", tin)
	if code != 0 {
		t.Fatalf("tenant create: %d %s", code, errOut)
	}
	tenantID = strings.TrimSpace(out)
	return tenantID, SecKey(t, dsn, tenantID)
}

// SecAs is one of the tests' shared bodies (sampleBuyer, singleLineBody...)
// as the typed client's T. It fails the test when T has no field for one of
// the body's, so that the typed request carries everything the body does.
func SecAs[T any](t *testing.T, body map[string]any) *T {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode %v: %v", body, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var v T
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%T cannot hold %s: %v", v, raw, err)
	}
	return &v
}

// SecProfile, secBuyer and secSeller are sampleProfile, sampleBuyer and
// SampleSeller for the typed client.
func SecProfile(t *testing.T) *client.Profile { return SecAs[client.Profile](t, SampleProfile()) }
