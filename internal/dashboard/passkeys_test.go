package dashboard_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The passkey endpoints over plain HTTP: what a hostile client can post
// gets a clear JSON refusal, never a 500.

// passkeyClient is a browser of its own: a cookie jar, no redirects
// followed.
func passkeyClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var passkeyCSRFField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// passkeyCSRF gets the page and returns the CSRF token of its first form.
func passkeyCSRF(t *testing.T, hc *http.Client, page string) string {
	t.Helper()
	resp, err := hc.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := passkeyCSRFField.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET %s = %d, no CSRF token:\n%s", page, resp.StatusCode, body)
	}
	return string(m[1])
}

// passkeyPost posts the form from base's own pages (Origin: base) and
// returns the status and body.
func passkeyPost(t *testing.T, hc *http.Client, base, path string, form url.Values) (int, string) {
	t.Helper()
	return passkeyPostBody(t, hc, base, base, path, form.Encode())
}

func passkeyPostBody(t *testing.T, hc *http.Client, base, origin, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// signedInPasskeyClient signs the person in at base: a signed-in client
// and its session's CSRF token.
func signedInPasskeyClient(t *testing.T, base string, p *person) (*http.Client, string) {
	t.Helper()
	hc := passkeyClient(t)
	csrf := passkeyCSRF(t, hc, base+"/app/signin")
	if status, body := passkeyPost(t, hc, base, "/app/signin", url.Values{"csrf": {csrf}, "email": {p.Email}, "password": {p.Password}}); status != http.StatusSeeOther {
		t.Fatalf("sign in %s = %d:\n%s", p.Email, status, body)
	}
	return hc, passkeyCSRF(t, hc, base+"/app/account")
}

// assertion is a sign-in answer that parses, for the challenge, signed by
// nobody.
func assertion(base, challenge string) string {
	enc := base64.RawURLEncoding.EncodeToString
	client, _ := json.Marshal(map[string]string{"type": "webauthn.get", "challenge": challenge, "origin": base})
	rp := sha256.Sum256([]byte("localhost"))
	auth := append(rp[:], 0x05, 0, 0, 0, 1) // user present and verified, sign count 1
	id := enc([]byte("a credential nobody has"))
	b, _ := json.Marshal(map[string]any{"id": id, "rawId": id, "type": "public-key", "clientExtensionResults": map[string]any{},
		"response": map[string]string{"clientDataJSON": enc(client), "authenticatorData": enc(auth),
			"signature": enc([]byte("not a signature")), "userHandle": enc([]byte("01890000-0000-7000-8000-000000000000"))}})
	return string(b)
}

// errorOf is the error_code and message of a JSON error body.
func errorOf(body string) (code, message string) {
	var e struct {
		Code    string `json:"error_code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal([]byte(body), &e)
	return e.Code, e.Message
}

// optionsOf decodes a begin's answer.
func optionsOf(t *testing.T, status int, body string) map[string]any {
	t.Helper()
	var o struct {
		PublicKey map[string]any `json:"publicKey"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &o) != nil || o.PublicKey == nil {
		t.Fatalf("passkey options = %d %s", status, body)
	}
	return o.PublicKey
}

func TestPasskeyHostileInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base := localBase(f)
	big := strings.Repeat("A", 100<<10)

	// The sign-in page's endpoints.
	anon := passkeyClient(t)
	csrf := passkeyCSRF(t, anon, base+"/app/signin")
	status, body := passkeyPost(t, anon, base, "/app/signin/passkey/options", url.Values{"csrf": {csrf}})
	pk := optionsOf(t, status, body)
	if pk["rpId"] != "localhost" || pk["userVerification"] != "required" || pk["allowCredentials"] != nil {
		t.Errorf("sign-in options = %v, want localhost, user verification, any discoverable credential", pk)
	}
	challenge, _ := pk["challenge"].(string)

	cases := []struct {
		name, path, origin, body string
		status                   int
		code                     string // the JSON error's error_code
	}{
		{"no CSRF token", "/app/signin/passkey/options", base, "", 403, "FORBIDDEN"},
		{"another site", "/app/signin/passkey/options", "http://evil.example", url.Values{"csrf": {csrf}}.Encode(), 403, "FORBIDDEN"},
		{"garbage", "/app/signin/passkey", base, url.Values{"csrf": {csrf}, "credential": {"{not json"}}.Encode(), 401, "UNAUTHORIZED"},
		{"nothing", "/app/signin/passkey", base, url.Values{"csrf": {csrf}}.Encode(), 401, "UNAUTHORIZED"},
		{"JSON of another shape", "/app/signin/passkey", base, url.Values{"csrf": {csrf}, "credential": {`{"id":[1],"response":"x"}`}}.Encode(), 401, "UNAUTHORIZED"},
		{"an unknown challenge", "/app/signin/passkey", base, url.Values{"csrf": {csrf}, "credential": {assertion(base, "bm90IG91cnMgYXQgYWxsIG5vdCBvdXJzIGF0IGFsbA")}}.Encode(), 422, "VALIDATION_FAILED"},
		{"an unknown passkey", "/app/signin/passkey", base, url.Values{"csrf": {csrf}, "credential": {assertion(base, challenge)}}.Encode(), 401, "UNAUTHORIZED"},
		{"its challenge again", "/app/signin/passkey", base, url.Values{"csrf": {csrf}, "credential": {assertion(base, challenge)}}.Encode(), 422, "VALIDATION_FAILED"},
		{"too large", "/app/signin/passkey", base, url.Values{"csrf": {csrf}, "credential": {big}}.Encode(), 413, "PAYLOAD_TOO_LARGE"},
	}
	for _, c := range cases {
		status, body := passkeyPostBody(t, anon, base, c.origin, c.path, c.body)
		if code, msg := errorOf(body); status != c.status || code != c.code || msg == "" {
			t.Errorf("%s: POST %s = %d %s, want %d %s with a message", c.name, c.path, status, body, c.status, c.code)
		}
	}

	// At an IP address (the same service at 127.0.0.1), passkeys say why
	// they cannot work.
	ip := passkeyClient(t)
	status, body = passkeyPost(t, ip, f.svc.URL, "/app/signin/passkey/options", url.Values{"csrf": {passkeyCSRF(t, ip, f.svc.URL+"/app/signin")}})
	if code, _ := errorOf(body); status != http.StatusUnprocessableEntity || code != "VALIDATION_FAILED" {
		t.Errorf("passkey options at %s = %d %s, want 422 VALIDATION_FAILED", f.svc.URL, status, body)
	}

	// The account page's endpoints.
	hc, token := signedInPasskeyClient(t, base, f.owner)
	status, body = passkeyPost(t, hc, base, "/app/account/passkeys/options", url.Values{"csrf": {token}})
	pk = optionsOf(t, status, body)
	sel, _ := pk["authenticatorSelection"].(map[string]any)
	user, _ := pk["user"].(map[string]any)
	if sel["residentKey"] != "required" || sel["userVerification"] != "required" || user["name"] != "owner@example.com" {
		t.Errorf("registration options = %v, want a discoverable, user-verified passkey of owner@example.com", pk)
	}
	cases = []struct {
		name, path, origin, body string
		status                   int
		code                     string // the JSON error's error_code
	}{
		{"no CSRF token", "/app/account/passkeys/options", base, "", 403, "FORBIDDEN"},
		{"the sign-in page's token", "/app/account/passkeys", base, url.Values{"csrf": {csrf}, "name": {"x"}}.Encode(), 403, "FORBIDDEN"},
		{"no name", "/app/account/passkeys", base, url.Values{"csrf": {token}, "credential": {"{}"}}.Encode(), 422, "VALIDATION_FAILED"},
		{"a long name", "/app/account/passkeys", base, url.Values{"csrf": {token}, "name": {strings.Repeat("n", 101)}}.Encode(), 422, "VALIDATION_FAILED"},
		{"garbage", "/app/account/passkeys", base, url.Values{"csrf": {token}, "name": {"x"}, "credential": {"\x00\xff"}}.Encode(), 422, "VALIDATION_FAILED"},
		{"a sign-in's answer", "/app/account/passkeys", base, url.Values{"csrf": {token}, "name": {"x"}, "credential": {assertion(base, challenge)}}.Encode(), 422, "VALIDATION_FAILED"},
		{"too large", "/app/account/passkeys", base, url.Values{"csrf": {token}, "name": {"x"}, "credential": {big}}.Encode(), 413, "PAYLOAD_TOO_LARGE"},
	}
	for _, c := range cases {
		status, body := passkeyPostBody(t, hc, base, c.origin, c.path, c.body)
		if code, msg := errorOf(body); status != c.status || code != c.code || msg == "" {
			t.Errorf("%s: POST %s = %d %s, want %d %s with a message", c.name, c.path, status, body, c.status, c.code)
		}
	}
	if status, body := passkeyPost(t, anon, base, "/app/account/passkeys/options", url.Values{"csrf": {csrf}}); status != http.StatusUnauthorized || !strings.HasPrefix(body, "{") {
		t.Errorf("registration options without a session = %d %s, want 401", status, body)
	}
	for _, id := range []string{"bm9uZQ", "not%20base64"} {
		if status, body := passkeyPost(t, hc, base, "/app/account/passkeys/"+id+"/delete", url.Values{"csrf": {token}}); status != http.StatusNotFound {
			t.Errorf("remove passkey %s = %d, want the 404 page:\n%s", id, status, body)
		}
	}
}
