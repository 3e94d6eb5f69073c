package sandbox_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// FuzzSubmit posts random bodies to the submit endpoint (as they are, or
// wrapped as one document of a well-formed submission) and wants no 5xx. It
// runs on SQLite, and on PostgreSQL too when EINVOICE_TEST_POSTGRES_URL is
// set.
func FuzzSubmit(f *testing.F) {
	now := time.Now()
	good := invoice(invoiceOpts{code: "FZ-1", issued: now})
	f.Add(envelope(good), false)
	f.Add(good.body, true)
	f.Add([]byte(`{"documents":[{"format":"JSON","document":"e30=","documentHash":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","codeNumber":"x"}]}`), false)
	f.Add([]byte(`{"documents":[{"format":"XML","document":"PGEvPg==","documentHash":"","codeNumber":"x"}]}`), false)
	f.Add(xmlEnvelope("XML", xmlInvoice("FZ-1", now, "")), false)
	f.Add([]byte(`{"documents":null}`), false)
	f.Add([]byte(`{"_D":"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2","_A":"a","_B":"b","Invoice":[{"ID":[{"_":"\u0000"}]}]}`), true)
	f.Add([]byte(`{"_D":1,"Invoice":[[[[]]]]}`), true)
	f.Add([]byte("\xff\xfe"), true)
	if b, err := os.ReadFile(filepath.Join(samplesDir, "1.1-Credit-Note-Sample.json")); err == nil {
		f.Add(b, true)
	}

	var targets []*client
	for _, dsn := range fuzzDSNs(f) {
		box, err := secretbox.New(bytes.Repeat([]byte{7}, secretbox.KeySize))
		if err != nil {
			f.Fatal(err)
		}
		st, err := sqlstore.Open(context.Background(), dsn, box)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { st.Close() })
		if err := st.Migrate(context.Background(), nil); err != nil {
			f.Fatal(err)
		}
		sb := sandbox.New(sandbox.Options{DB: st.DB(), ReadDB: st.ReadDB(), Postgres: st.Engine() == sqlstore.Postgres,
			VerifySignature: func([]byte) error { return nil }})
		if err := sb.AddClient(context.Background(), sandbox.Client{ID: "fuzz", Secret: "secret-fuzz", TIN: supplierTIN}); err != nil {
			f.Fatal(err)
		}
		hs := httptest.NewServer(sb)
		f.Cleanup(hs.Close)
		targets = append(targets, &client{base: hs.URL, hc: &http.Client{Timeout: time.Minute}})
	}
	f.Fuzz(func(t *testing.T, body []byte, wrap bool) {
		if wrap {
			body = envelope(doc{code: "FZ-1", body: body})
		}
		for _, c := range targets {
			c.t = t
			if c.token == "" {
				c.token = login(t, c.base, "fuzz", "").token
			}
			r, err := c.try(http.MethodPost, "/api/v1.0/documentsubmissions/", body)
			if err != nil {
				t.Fatalf("submit: %v", err)
			}
			if r.Status >= 500 {
				t.Fatalf("submit %q: %d %s", body, r.Status, r.Body)
			}
		}
	})
}

// fuzzDSNs are the databases FuzzSubmit runs on.
func fuzzDSNs(f *testing.F) []string {
	dsns := []string{migrated.SQLite(f)}
	if os.Getenv(testdb.EnvPostgres) != "" {
		dsns = append(dsns, migrated.Postgres(f, os.Getenv))
	}
	return dsns
}
