package sqlstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// engine opens a fresh, migrated store of one engine; a second call with
// the same dsn opens another pool on the same database (a "replica").
type engine struct {
	name string
	dsn  func(t *testing.T) string
}

// engines give empty databases: for the tests of migrations.
var engines = []engine{
	{"sqlite", func(t *testing.T) string { return testdb.SQLite(t) }},
	{"postgres", func(t *testing.T) string { return testdb.Postgres(t, os.Getenv) }},
}

// schemaEngines give databases with the schema in place (copies of a
// template migrated once): for the tests of what the store keeps.
var schemaEngines = []engine{
	{"sqlite", func(t *testing.T) string { return migrated.SQLite(t) }},
	{"postgres", func(t *testing.T) string { return migrated.Postgres(t, os.Getenv) }},
}

var testKey = bytes.Repeat([]byte{42}, secretbox.KeySize)

func open(t testing.TB, dsn string) *sqlstore.Store {
	t.Helper()
	box, err := secretbox.New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx, nil); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s
}

// TestConformance runs the same suite against every engine.
func TestConformance(t *testing.T) {
	t.Parallel()
	suite := map[string]func(t *testing.T, dsn string){
		"Tenants":          testTenants,
		"APIKeys":          testAPIKeys,
		"Parties":          testParties,
		"PartyListing":     testPartyListing,
		"Bootstrap":        testBootstrap,
		"RateLimit":        testRateLimit,
		"AuthorityBudget":  testAuthorityBudget,
		"MigrateTwice":     testMigrateTwice,
		"ConcurrentWrites": testConcurrentWrites,
		"ConcurrentDocs":   testConcurrentDocuments,
		"Documents":        testDocuments,
		"DocumentListing":  testDocumentListing,
		"DocumentPeriod":   testDocumentPeriod,
		"Unreadable":       testUnreadableDocuments,
		"StoredRendering":  testStoredRendering,
		"CountsByStatus":   testCountsByStatus,
		"ClaimPolls":       testClaimPolls,
		"Outbox":           testOutbox,
		"UnknownOutcomes":  testUnknownOutcomes,
		"EventsWebhooks":   testEventsAndDeliveries,
		"Received":         testReceived,
		"Receipts":         testReceipts,

		"ReceiptConversion": testReceiptConversion,
		"Consolidations":    testConsolidations,
		"Sessions":          testSessions,

		"Users":                testUsers,
		"SetPassword":          testSetPassword,
		"Memberships":          testMemberships,
		"LastOwner":            testLastOwner,
		"ConcurrentDemotions":  testConcurrentDemotions,
		"RemoveMembershipEnds": testRemoveMembershipSessions,
		"UserTokens":           testUserTokens,
		"SignInFailures":       testSignInFailures,
		"Passkeys":             testPasskeys,
		"TOTPStep":             testTOTPStep,
		"APIKeyLastUsed":       testAPIKeyLastUsed,
		"DeleteOldSignInData":  testDeleteOldSignInData,
		"Audit":                testAudit,
		"AuditReplicas":        testAuditReplicas,
	}
	for _, e := range schemaEngines {
		t.Run(e.name, func(t *testing.T) {
			for name, test := range suite {
				t.Run(name, func(t *testing.T) { test(t, e.dsn(t)) })
			}
		})
	}
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

var t0 = time.Date(2026, 11, 22, 8, 0, 0, 123456000, time.UTC)

func tenant(name string) *einvoice.Tenant {
	p := einvoice.DemoProfile()
	p.Name = name
	return &einvoice.Tenant{ID: newID(), Profile: p, Authority: einvoice.Authority{
		Environment: einvoice.EnvSandbox, Mode: einvoice.ModeTaxpayer, ClientID: "sandbox-1", ClientSecret: "s3cret-client-secret",
	}, CreatedAt: t0, UpdatedAt: t0}
}

func mustCreateTenant(t *testing.T, s *sqlstore.Store, name string) *einvoice.Tenant {
	t.Helper()
	tn := tenant(name)
	if err := s.CreateTenant(context.Background(), tn); err != nil {
		t.Fatalf("CreateTenant: %v", err)
	}
	return tn
}

func testTenants(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "Alpha Sdn. Bhd.")
	a.Authority.PrivateKeyPEM = "-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----"
	a.Authority.PKCS12 = []byte{0, 1, 2, 3, 255}
	a.Authority.PKCS12Password = "p12-password"
	a.Profile.Contact.Email = "new@alpha.example"
	a.UpdatedAt = t0.Add(time.Hour)
	if err := s.UpdateTenant(ctx, a); err != nil {
		t.Fatalf("UpdateTenant: %v", err)
	}
	got, err := s.GetTenant(ctx, a.ID)
	if err != nil {
		t.Fatalf("GetTenant: %v", err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("GetTenant after update (-want +got):\n%s", diff)
	}
	// Secrets are encrypted at rest: no column holds them in clear.
	var secret, key, p12pw string
	if err := s.DB().QueryRowContext(ctx, `SELECT auth_client_secret_enc, auth_private_key_enc, auth_pkcs12_password_enc FROM tenants WHERE id = $1`, a.ID).Scan(&secret, &key, &p12pw); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{secret, key, p12pw} {
		if v == "" || strings.Contains(v, "secret") || strings.Contains(v, "p12-password") {
			t.Errorf("stored secret %q is not encrypted", v)
		}
	}
	b := mustCreateTenant(t, s, "Beta Sdn. Bhd.")
	list, err := s.ListTenants(ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Errorf("ListTenants = %d tenants, %v; want Alpha then Beta", len(list), err)
	}
	for _, id := range []string{newID(), "not-a-uuid", ""} {
		if _, err := s.GetTenant(ctx, id); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("GetTenant(%q) error = %v, want ErrNotFound", id, err)
		}
	}
	missing := tenant("Missing")
	if err := s.UpdateTenant(ctx, missing); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UpdateTenant(unknown) error = %v, want ErrNotFound", err)
	}
	// Another secret key cannot read the secrets.
	other, _ := secretbox.New(bytes.Repeat([]byte{1}, secretbox.KeySize))
	s2, err := sqlstore.Open(ctx, dsn, other)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.GetTenant(ctx, a.ID); err == nil || !strings.Contains(err.Error(), "EINVOICE_SECRET_KEY") {
		t.Errorf("GetTenant with the wrong secret key: error = %v, want one naming EINVOICE_SECRET_KEY", err)
	}
}

func testAPIKeys(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Keys")
	k := &einvoice.APIKey{ID: newID(), TenantID: tn.ID, Name: "Aisyah <binti> Ahmad", Prefix: "eik_abcdefgh", Hash: einvoice.HashAPIKey("eik_one"),
		Permission: einvoice.PermRead, CreatedAt: t0}
	if err := s.CreateAPIKey(ctx, k); err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	got, err := s.APIKeyByHash(ctx, einvoice.HashAPIKey("eik_one"))
	if err != nil {
		t.Fatalf("APIKeyByHash: %v", err)
	}
	if diff := cmp.Diff(k, got); diff != "" {
		t.Errorf("APIKeyByHash (-want +got):\n%s", diff)
	}
	if _, err := s.APIKeyByHash(ctx, einvoice.HashAPIKey("eik_two")); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("APIKeyByHash(unknown) error = %v, want ErrNotFound", err)
	}
	dup := *k
	dup.ID = newID()
	if err := s.CreateAPIKey(ctx, &dup); !errors.Is(err, einvoice.ErrConflict) {
		t.Errorf("CreateAPIKey(same hash) error = %v, want ErrConflict", err)
	}
	orphan := &einvoice.APIKey{ID: newID(), TenantID: newID(), Prefix: "x", Hash: einvoice.HashAPIKey("eik_orphan"), Permission: einvoice.PermRead, CreatedAt: t0}
	if err := s.CreateAPIKey(ctx, orphan); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("CreateAPIKey(unknown tenant) error = %v, want ErrNotFound", err)
	}
	at := t0.Add(time.Minute)
	if err := s.RevokeAPIKey(ctx, k.ID, at); err != nil {
		t.Fatalf("RevokeAPIKey: %v", err)
	}
	if err := s.RevokeAPIKey(ctx, k.ID, at.Add(time.Hour)); err != nil {
		t.Fatalf("RevokeAPIKey again: %v", err)
	}
	keys, err := s.ListAPIKeys(ctx, tn.ID)
	if err != nil || len(keys) != 1 || keys[0].RevokedAt == nil || !keys[0].RevokedAt.Equal(at) {
		t.Errorf("ListAPIKeys = %+v, %v; want one key revoked at %v (the first revocation)", keys, err, at)
	}
	if err := s.RevokeAPIKey(ctx, newID(), at); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("RevokeAPIKey(unknown) error = %v, want ErrNotFound", err)
	}
}

func party(tenantID string, kind einvoice.PartyKind, name string, created time.Time) *einvoice.Party {
	return &einvoice.Party{
		ID: newID(), TenantID: tenantID, Kind: kind, Name: name, TIN: "C2584563200", IDType: "BRN", IDValue: "201901234567",
		SSTRegistrationNumber: "NA", IsDraft: false,
		Address:   einvoice.Address{Line1: "1 Jalan Satu", City: "Kuala Lumpur", State: "14", PostCode: "50000", CountryCode: "MYS"},
		Contact:   einvoice.Contact{Phone: "+60123456789", Email: "a@b.example"},
		CreatedAt: created, UpdatedAt: created,
	}
}

func testParties(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "A")
	b := mustCreateTenant(t, s, "B")
	buyer := party(a.ID, einvoice.KindBuyer, "Buyer One", t0)
	seller := party(a.ID, einvoice.KindSeller, "Seller One", t0)
	seller.MSICCode, seller.BusinessActivityDescription, seller.TourismTaxRegistrationNumber = "46510", "Wholesale", "NA"
	for _, p := range []*einvoice.Party{buyer, seller} {
		if err := s.CreateParty(ctx, p); err != nil {
			t.Fatalf("CreateParty: %v", err)
		}
		got, err := s.GetParty(ctx, a.ID, p.Kind, p.ID)
		if err != nil {
			t.Fatalf("GetParty: %v", err)
		}
		if diff := cmp.Diff(p, got); diff != "" {
			t.Errorf("GetParty (-want +got):\n%s", diff)
		}
	}
	// Scoped by tenant and kind.
	for _, c := range []struct {
		tenant string
		kind   einvoice.PartyKind
		id     string
	}{{b.ID, einvoice.KindBuyer, buyer.ID}, {a.ID, einvoice.KindSeller, buyer.ID}, {a.ID, einvoice.KindBuyer, "nope"}, {a.ID, einvoice.KindBuyer, newID()}} {
		if _, err := s.GetParty(ctx, c.tenant, c.kind, c.id); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("GetParty(%s, %s, %s) error = %v, want ErrNotFound", c.tenant, c.kind, c.id, err)
		}
		if err := s.DeleteParty(ctx, c.tenant, c.kind, c.id); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("DeleteParty(%s, %s, %s) error = %v, want ErrNotFound", c.tenant, c.kind, c.id, err)
		}
	}
	updated := *buyer
	updated.Name, updated.IsDraft, updated.Contact.Email, updated.UpdatedAt = "Buyer Renamed", true, "", t0.Add(time.Hour)
	if err := s.UpdateParty(ctx, &updated); err != nil {
		t.Fatalf("UpdateParty: %v", err)
	}
	got, _ := s.GetParty(ctx, a.ID, einvoice.KindBuyer, buyer.ID)
	if diff := cmp.Diff(&updated, got); diff != "" {
		t.Errorf("GetParty after update (-want +got):\n%s", diff)
	}
	foreign := updated
	foreign.TenantID = b.ID
	if err := s.UpdateParty(ctx, &foreign); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UpdateParty(other tenant) error = %v, want ErrNotFound", err)
	}
	if err := s.DeleteParty(ctx, a.ID, einvoice.KindBuyer, buyer.ID); err != nil {
		t.Fatalf("DeleteParty: %v", err)
	}
	if _, err := s.GetParty(ctx, a.ID, einvoice.KindBuyer, buyer.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("GetParty after delete error = %v, want ErrNotFound", err)
	}
}

func testPartyListing(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "A")
	b := mustCreateTenant(t, s, "B")
	var want []string // newest first
	names := []string{"Kedai Runcit Ah Chong", "100% Organic_Farm", "Syarikat Maju", "ALPHA Traders", "Beta Traders"}
	for i, n := range names {
		// Two share a creation time: ties are broken by id, newest first.
		created := t0.Add(time.Duration(i/2) * time.Second)
		p := party(a.ID, einvoice.KindBuyer, n, created)
		if i == 4 {
			p.TIN = "IG12345678901"
		}
		if err := s.CreateParty(ctx, p); err != nil {
			t.Fatal(err)
		}
		want = append([]string{n}, want...)
	}
	if err := s.CreateParty(ctx, party(b.ID, einvoice.KindBuyer, "Other tenant Traders", t0)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateParty(ctx, party(a.ID, einvoice.KindSeller, "A seller Traders", t0)); err != nil {
		t.Fatal(err)
	}
	list := func(search string, page, per int) (einvoice.Page[*einvoice.Party], []string) {
		t.Helper()
		pg, err := s.ListParties(ctx, a.ID, einvoice.KindBuyer, einvoice.PartyFilter{Search: search, PageRequest: einvoice.PageRequest{Page: page, PerPage: per}})
		if err != nil {
			t.Fatalf("ListParties: %v", err)
		}
		var got []string
		for _, p := range pg.Items {
			got = append(got, p.Name)
		}
		return pg, got
	}
	var all []string
	for page := 1; page <= 3; page++ {
		pg, got := list("", page, 2)
		if pg.Total != 5 || pg.LastPage() != 3 {
			t.Errorf("page %d: total %d last %d, want 5 and 3", page, pg.Total, pg.LastPage())
		}
		all = append(all, got...)
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("pages 1-3 of 2 (-want +got):\n%s", diff)
	}
	// The tie (names 2 and 3 share a time) is ordered by id, newest first.
	if _, got := list("", 4, 2); len(got) != 0 {
		t.Errorf("page past the end = %v, want empty", got)
	}
	for _, c := range []struct {
		search string
		want   []string
	}{
		{"traders", []string{"Beta Traders", "ALPHA Traders"}},
		{"ALPHA", []string{"ALPHA Traders"}},
		{"%", []string{"100% Organic_Farm"}},
		{"_", []string{"100% Organic_Farm"}},
		{"ig12345678901", []string{"Beta Traders"}},
		{"C2584563200", want[1:]},
		{"nothing", nil},
	} {
		pg, got := list(c.search, 1, 15)
		if diff := cmp.Diff(c.want, got); diff != "" || pg.Total != len(c.want) {
			t.Errorf("search %q: total %d (-want +got):\n%s", c.search, pg.Total, diff)
		}
	}
}

// testBootstrap: of concurrent bootstraps from two replicas exactly one
// creates the demo tenant, its key, its owner (an owner membership) and the
// owner's setup link; the others create nothing.
func testBootstrap(t *testing.T, dsn string) {
	ctx := context.Background()
	s1, s2 := open(t, dsn), open(t, dsn)
	var created atomic.Int32
	winner := atomic.Int32{}
	winner.Store(-1)
	var wg sync.WaitGroup
	const n = 4
	for i, s := range []*sqlstore.Store{s1, s2, s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tn := tenant(fmt.Sprintf("Demo %d", i))
			k := &einvoice.APIKey{ID: newID(), TenantID: tn.ID, Prefix: "eik_", Hash: einvoice.HashAPIKey(fmt.Sprint("eik_demo", i)),
				Permission: einvoice.PermReadWrite, CreatedAt: t0}
			owner := user(fmt.Sprintf("owner%d@example.com", i))
			owner.PasswordHash = ""
			link := &einvoice.UserToken{Hash: sessionID(fmt.Sprint("setup", i)), Kind: einvoice.TokenSetup, Email: owner.Email, UserID: owner.ID,
				CreatedBy: "service", CreatedAt: t0, ExpiresAt: t0.Add(7 * 24 * time.Hour)}
			ok, err := s.Bootstrap(ctx, tn, k, owner, link)
			if err != nil {
				t.Errorf("Bootstrap: %v", err)
			}
			if ok {
				created.Add(1)
				winner.Store(int32(i))
			}
		}()
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Fatalf("%d bootstraps created the demo tenant, want exactly 1", created.Load())
	}
	w := int(winner.Load())
	ts, err := s1.ListTenants(ctx)
	if err != nil || len(ts) != 1 || ts[0].Profile.Name != fmt.Sprintf("Demo %d", w) {
		t.Fatalf("tenants after bootstrap = %d, %v; want the winner's alone", len(ts), err)
	}
	members, err := s1.Members(ctx, ts[0].ID)
	if err != nil || len(members) != 1 || members[0].Role != einvoice.RoleOwner || members[0].User.Email != fmt.Sprintf("owner%d@example.com", w) {
		t.Errorf("the demo tenant's members = %+v, %v; want the winner's owner alone", members, err)
	}
	if keys, err := s1.ListAPIKeys(ctx, ts[0].ID); err != nil || len(keys) != 1 {
		t.Errorf("the demo tenant's keys = %d, %v; want 1", len(keys), err)
	}
	for i := range n {
		_, errUser := s2.UserByEmail(ctx, fmt.Sprintf("owner%d@example.com", i))
		link, errLink := s2.UserToken(ctx, sessionID(fmt.Sprint("setup", i)), t0)
		if i == w {
			if errUser != nil || errLink != nil || link.Kind != einvoice.TokenSetup {
				t.Errorf("the winner's owner and link: %v, %+v, %v", errUser, link, errLink)
			}
			continue
		}
		if !errors.Is(errUser, einvoice.ErrNotFound) || !errors.Is(errLink, einvoice.ErrNotFound) {
			t.Errorf("bootstrap %d lost but left its owner (%v) or link (%v)", i, errUser, errLink)
		}
	}
	// Later starts (with or without an owner) create nothing.
	tn := tenant("Late")
	k := &einvoice.APIKey{ID: newID(), TenantID: tn.ID, Prefix: "eik_", Hash: einvoice.HashAPIKey("eik_late"), Permission: einvoice.PermReadWrite, CreatedAt: t0}
	if ok, err := s1.Bootstrap(ctx, tn, k, nil, nil); ok || err != nil {
		t.Errorf("a later Bootstrap = %v, %v; want false, nil", ok, err)
	}
}

func testRateLimit(t *testing.T, dsn string) {
	ctx := context.Background()
	s1, s2 := open(t, dsn), open(t, dsn)
	const limit = 5
	l1, err := sqlstore.NewRateLimiter(s1, limit, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := sqlstore.NewRateLimiter(s2, limit, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	key := newID()
	// Two "replicas", four goroutines each: exactly the limit gets through.
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for g := range 8 {
		l := l1
		if g%2 == 1 {
			l = l2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				d, err := l.Allow(ctx, key, t0.Add(time.Second))
				if err != nil {
					t.Errorf("Allow: %v", err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
				if !d.Reset.Equal(t0.Add(time.Second + time.Minute)) {
					t.Errorf("Reset = %v, want the window opened by the first request", d.Reset)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != limit {
		t.Errorf("%d requests allowed in one window across replicas, want %d", allowed.Load(), limit)
	}
	// The window closes a minute after its first request; the next request opens a new one.
	d, err := l1.Allow(ctx, key, t0.Add(time.Second+time.Minute))
	if err != nil || !d.Allowed || d.Remaining != limit-1 || !d.Reset.Equal(t0.Add(time.Second+2*time.Minute)) {
		t.Errorf("first request of the next window = %+v, %v", d, err)
	}
	// Another key has its own window.
	if d, _ := l2.Allow(ctx, newID(), t0.Add(2*time.Second)); !d.Allowed || d.Remaining != limit-1 {
		t.Errorf("another key = %+v, want allowed with %d remaining", d, limit-1)
	}
}

func testMigrateTwice(t *testing.T, dsn string) {
	s := open(t, dsn)
	if err := s.Migrate(context.Background(), nil); err != nil {
		t.Errorf("second Migrate: %v", err)
	}
	// Replicas migrating at once: the lock lets one migrate, the others see it done.
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := open(t, dsn).Migrate(context.Background(), nil); err != nil {
				t.Errorf("concurrent Migrate: %v", err)
			}
		}()
	}
	wg.Wait()
}

// testConcurrentWrites: writers from several goroutines never fail with a
// busy or lock error (SQLite queues them on one connection).
func testConcurrentWrites(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Busy")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				p := party(tn.ID, einvoice.KindBuyer, fmt.Sprintf("B %d-%d", g, i), t0)
				if err := s.CreateParty(ctx, p); err != nil {
					t.Errorf("CreateParty: %v", err)
					return
				}
				if _, err := s.GetParty(ctx, tn.ID, einvoice.KindBuyer, p.ID); err != nil {
					t.Errorf("GetParty right after create: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	pg, err := s.ListParties(ctx, tn.ID, einvoice.KindBuyer, einvoice.PartyFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 1}})
	if err != nil || pg.Total != 200 {
		t.Errorf("total after concurrent writes = %d, %v; want 200", pg.Total, err)
	}
}
