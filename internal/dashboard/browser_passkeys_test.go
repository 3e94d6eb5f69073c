package dashboard_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// Passkeys in a real Chromium, with the DevTools protocol's virtual
// authenticators (a platform authenticator that holds discoverable
// credentials and verifies its user). WebAuthn needs a host name, never an
// IP address, and a secure context: http://localhost is one, so these tests
// browse the service at localhost, not at 127.0.0.1.

// localBase is the service's address at localhost.
func localBase(f *fixture) string { return strings.Replace(f.svc.URL, "127.0.0.1", "localhost", 1) }

// authenticator enables WebAuthn in the tab and adds a virtual passkey
// authenticator to it (the tab's only one).
func (c *chrome) authenticator() webauthn.AuthenticatorID {
	c.t.Helper()
	var id webauthn.AuthenticatorID
	c.run(webauthn.Enable().WithEnableUI(false), chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		id, err = webauthn.AddVirtualAuthenticator(&webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true,
		}).Do(ctx)
		return err
	}))
	return id
}

// credentials returns what the authenticator holds, private keys included.
func (c *chrome) credentials(id webauthn.AuthenticatorID) []*webauthn.Credential {
	c.t.Helper()
	var creds []*webauthn.Credential
	c.run(chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		creds, err = webauthn.GetCredentials(id).Do(ctx)
		return err
	}))
	return creds
}

// addPasskey adds a passkey named name on the account page.
func (c *chrome) addPasskey(name string) {
	c.t.Helper()
	c.visit("/app/account", "account")
	c.run(chromedp.WaitVisible("#passkey-add", chromedp.ByQuery),
		chromedp.SendKeys("#f-passkey-name", name, chromedp.ByQuery),
		chromedp.Click("#passkey-add button", chromedp.ByQuery),
		chromedp.WaitVisible("p.flash-ok", chromedp.ByQuery))
	if got := c.text("p.flash-ok"); !strings.Contains(got, name) {
		c.t.Fatalf("after adding passkey %q: %q", name, got)
	}
	c.screenshot("passkey-added")
}

// passkeySignIn clicks "Sign in with a passkey" on the sign-in page and
// returns the error it shows, or "" once signed in.
func (c *chrome) passkeySignIn() string {
	c.t.Helper()
	c.visit("/app/signin", "signin")
	c.run(chromedp.WaitVisible("#passkey-signin-button", chromedp.ByQuery), chromedp.Click("#passkey-signin-button", chromedp.ByQuery))
	var signedIn bool
	c.run(chromedp.WaitVisible(`a[href="/app/account"], #passkey-signin-error:not([hidden])`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('a[href="/app/account"]') !== null`, &signedIn))
	if signedIn {
		return ""
	}
	c.screenshot("passkey-refused")
	return c.text("#passkey-signin-error")
}

// TestBrowserPasskey registers two passkeys (two authenticators) from the
// account page, signs in with one alone in another browser (no e-mail
// typed), removes it, and checks it no longer signs in; a passkey that
// claims another user is refused.
func TestBrowserPasskey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base := localBase(f)

	c := newChrome(t, base)
	first := c.authenticator()
	c.signIn(f.owner)
	c.addPasskey("Laptop")
	laptop := c.credentials(first)
	if len(laptop) != 1 || !laptop[0].IsResidentCredential || laptop[0].RpID != "localhost" {
		t.Fatalf("the authenticator holds %+v, want one discoverable credential of localhost", laptop)
	}
	// A second passkey, on a second authenticator.
	c.run(webauthn.RemoveVirtualAuthenticator(first))
	second := c.authenticator()
	c.addPasskey("Phone")
	phone := c.credentials(second)
	if len(phone) != 1 {
		t.Fatalf("the second authenticator holds %d credentials", len(phone))
	}
	if got := c.text("#passkeys"); !strings.Contains(got, "Laptop") || !strings.Contains(got, "Phone") || !strings.Contains(got, "Never") {
		t.Errorf("the passkeys table = %q, want Laptop and Phone, never used", got)
	}

	// Another user cannot remove the owner's passkey.
	other := f.personIn(t, f.demoTenant(t), "admin", "Bee Admin")
	hc, token := signedInPasskeyClient(t, base, other)
	laptopID, err := base64.StdEncoding.DecodeString(laptop[0].CredentialID)
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := passkeyPost(t, hc, base, "/app/account/passkeys/"+base64.RawURLEncoding.EncodeToString(laptopID)+"/delete",
		url.Values{"csrf": {token}}); status != http.StatusNotFound {
		t.Errorf("another user removing the owner's passkey = %d, want 404", status)
	}

	// Another browser holds the laptop's passkey: it signs in alone.
	elsewhere := newChrome(t, base)
	device := elsewhere.authenticator()
	elsewhere.run(webauthn.AddCredential(device, laptop[0]))
	if msg := elsewhere.passkeySignIn(); msg != "" {
		t.Fatalf("sign in with the laptop's passkey: %q", msg)
	}
	elsewhere.visit("/app/account", "account-after-passkey")
	if got := elsewhere.text("#passkeys tbody tr:first-child"); !strings.Contains(got, "Laptop") || strings.Contains(got, "Never") {
		t.Errorf("the laptop's row after its sign-in = %q, want a last use", got)
	}
	if got := elsewhere.credentials(device); len(got) != 1 || got[0].SignCount < 1 {
		t.Errorf("the authenticator's credential after a sign-in: %+v", got)
	}

	// The first browser removes the laptop's passkey: it no longer signs in.
	c.visit("/app/account", "account-before-remove")
	c.run(chromedp.Click(`button[aria-label="Remove the passkey Laptop"]`, chromedp.ByQuery), chromedp.WaitVisible("p.flash-ok", chromedp.ByQuery))
	if got := c.text("#passkeys"); strings.Contains(got, "Laptop") || !strings.Contains(got, "Phone") {
		t.Errorf("the passkeys table after removing Laptop = %q", got)
	}
	gone := newChrome(t, base)
	gd := gone.authenticator()
	gone.run(webauthn.AddCredential(gd, laptop[0]))
	if msg := gone.passkeySignIn(); msg == "" {
		t.Errorf("a removed passkey signed in")
	}

	// The phone's passkey claiming another user (its user handle changed)
	// is refused.
	gone.run(webauthn.ClearCredentials(gd))
	forged := *phone[0]
	forged.UserHandle = base64.StdEncoding.EncodeToString([]byte("01890000-0000-7000-8000-000000000000"))
	gone.run(webauthn.AddCredential(gd, &forged))
	if msg := gone.passkeySignIn(); msg == "" {
		t.Errorf("a passkey claiming another user signed in")
	}

	// A sign-in's answer is taken once: replayed, it is refused.
	gone.run(webauthn.ClearCredentials(gd), webauthn.AddCredential(gd, phone[0]))
	gone.visit("/app/signin", "signin-replay")
	var answer string
	gone.run(chromedp.Evaluate(passkeyCeremonyJS, &answer, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	status, body := replayPasskeySignIn(t, base, answer)
	if code, _ := errorOf(body); status != http.StatusUnprocessableEntity || code != "VALIDATION_FAILED" {
		t.Errorf("a replayed sign-in = %d %s, want 422 VALIDATION_FAILED (the ceremony is used)", status, body)
	}
	gone.visit("/app/account", "account-after-scripted-passkey")
	if got := gone.text("#passkeys"); !strings.Contains(got, "Phone") {
		t.Errorf("after the scripted sign-in, the account page = %q", got)
	}
}

// passkeyCeremonyJS signs in with the page's passkey as static/passkeys.js
// does, and returns the answer it posted (which signed in).
const passkeyCeremonyJS = `(async () => {
  const bytes = s => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), ch => ch.charCodeAt(0)).buffer;
  const b64url = b => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const sec = document.getElementById("passkey-signin"), csrf = sec.dataset.csrf;
  const post = (url, fields) => fetch(url, {method: "POST", credentials: "same-origin", body: new URLSearchParams(fields)});
  const opts = await (await post(sec.dataset.options, {csrf})).json();
  const pk = Object.assign({}, opts.publicKey, {challenge: bytes(opts.publicKey.challenge)});
  const cred = await navigator.credentials.get({publicKey: pk});
  const r = cred.response;
  const answer = JSON.stringify({id: cred.id, rawId: b64url(cred.rawId), type: cred.type, clientExtensionResults: {},
    response: {clientDataJSON: b64url(r.clientDataJSON), authenticatorData: b64url(r.authenticatorData),
      signature: b64url(r.signature), userHandle: b64url(r.userHandle)}});
  const done = await post(sec.dataset.finish, {csrf, credential: answer});
  if (!done.ok) { throw new Error("sign in: " + done.status + " " + await done.text()); }
  return answer;
})()`

// replayPasskeySignIn posts an answer to the passkey sign-in from a
// browser of its own (its own pre-session cookie and CSRF token).
func replayPasskeySignIn(t *testing.T, base, answer string) (int, string) {
	t.Helper()
	hc := passkeyClient(t)
	csrf := passkeyCSRF(t, hc, base+"/app/signin")
	return passkeyPost(t, hc, base, "/app/signin/passkey", url.Values{"csrf": {csrf}, "credential": {answer}})
}
