package invoicing_test

import (
	"context"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// testPassword passes the password rules.
const testPassword = "correct horse battery staple 42"

// linkSecret is the secret of a one-time link's URL (its last segment).
func linkSecret(t *testing.T, url string) string {
	t.Helper()
	i := strings.LastIndex(url, "/app/link/")
	if i < 0 || len(url) == i+len("/app/link/") {
		t.Fatalf("%q is not a one-time link", url)
	}
	return url[i+len("/app/link/"):]
}

// signedIn adds a user of the e-mail to the world's tenant with the role
// (as `einvoice user add` does), sets its password by the link and returns
// the session token it opened.
func (w *world) signedIn(email string, role einvoice.Role) string {
	w.t.Helper()
	ctx := context.Background()
	_, link, err := w.svc.AddUser(ctx, w.tenant.ID, email, "", role)
	if err != nil {
		w.t.Fatalf("AddUser: %v", err)
	}
	res, err := w.svc.UseLink(ctx, linkSecret(w.t, link), "", testPassword, "192.0.2.1")
	if err != nil {
		w.t.Fatalf("UseLink: %v", err)
	}
	return res.Token
}

// TestBootstrapOnce: the first start of an empty database makes the demo
// tenant (sandbox credentials), its read-write key and its owner, whose
// one-time link sets the password and signs in, once; later starts make
// nothing.
func TestBootstrapOnce(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		w := newWorldWith(t, dsn, func(o *invoicing.Options) {
			o.OwnerEmail = "Boss@Example.com"
			o.PublicURL = "https://einvoice.example/"
		})
		svc := w.svc
		b, err := svc.Bootstrap(ctx)
		if err != nil || b == nil || b.Tenant == nil || b.Key == "" {
			t.Fatalf("first Bootstrap = %+v, %v", b, err)
		}
		k, err := svc.Authenticate(ctx, "Bearer "+b.Key)
		if err != nil || k.TenantID != b.Tenant.ID || k.Permission != einvoice.PermReadWrite {
			t.Errorf("the demo key: %+v, %v; want a read-write key of the demo tenant", k, err)
		}
		if a := b.Tenant.Authority; a.Environment != einvoice.EnvSandbox || a.ClientID == "" || a.ClientSecret == "" {
			t.Errorf("demo tenant authority = %+v, want sandbox with generated credentials", a)
		}
		if b.OwnerEmail != "Boss@Example.com" || !strings.HasPrefix(b.OwnerLink, "https://einvoice.example/app/link/") {
			t.Errorf("owner %q, link %q; want Boss@Example.com and a link under the public URL", b.OwnerEmail, b.OwnerLink)
		}
		secret := linkSecret(t, b.OwnerLink)
		l, err := svc.Link(ctx, secret)
		if err != nil || l.Token.Kind != einvoice.TokenSetup || l.User == nil || l.User.Email != b.OwnerEmail || l.User.PasswordHash != "" {
			t.Fatalf("Link(owner's) = %+v, %v; want a setup link of the owner, who has no password yet", l, err)
		}
		if _, err := svc.SignIn(ctx, b.OwnerEmail, testPassword, "192.0.2.7"); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
			t.Errorf("SignIn before the password is set = %v, want UNAUTHORIZED", err)
		}
		// A refused password leaves the link usable.
		if _, err := svc.UseLink(ctx, secret, "", "short", "192.0.2.7"); einvoice.ErrorCode(err) != einvoice.CodeValidationFailed {
			t.Errorf("UseLink(short password) = %v, want VALIDATION_FAILED", err)
		}
		res, err := svc.UseLink(ctx, secret, "", testPassword, "192.0.2.7")
		if err != nil || res.NeedsSecondFactor || res.TenantID != b.Tenant.ID {
			t.Fatalf("UseLink(owner's) = %+v, %v; want a full session in the demo tenant", res, err)
		}
		su, err := svc.Session(ctx, res.Token)
		if err != nil || su.Role != einvoice.RoleOwner || su.TenantName != b.Tenant.Profile.Name || su.User.Email != b.OwnerEmail {
			t.Errorf("the owner's session = %+v, %v; want the owner of the demo tenant", su, err)
		}
		if _, err := svc.UseLink(ctx, secret, "", testPassword+"!", "192.0.2.7"); einvoice.ErrorCode(err) != einvoice.CodeNotFound {
			t.Errorf("UseLink a second time = %v, want NOT_FOUND", err)
		}
		if _, err := svc.SignIn(ctx, "boss@example.com", testPassword, "192.0.2.7"); err != nil {
			t.Errorf("SignIn with the password the link set: %v", err)
		}
		if b2, err := svc.Bootstrap(ctx); err != nil || b2 != nil {
			t.Errorf("second Bootstrap = %+v, %v; want nothing", b2, err)
		}
	})
}
