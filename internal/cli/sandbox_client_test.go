package cli_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestSandboxClientAdd: a client registered with `einvoice sandbox client
// add` logs in to the standalone sandbox bound to its TIN; a client id the
// sandbox does not know is refused.
func TestSandboxClientAdd(t *testing.T) {
	t.Parallel()
	dsn := migrated.SQLite(t)
	out := mustCLI(t, dsn, "sandbox", "client", "add", "--tin", "C20000000010", "--name", "Alpha Sdn. Bhd.", "--id-value", "202001234567")
	m := regexp.MustCompile(`^client_id: (\S+)\nclient_secret: (\S+)\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("client add printed %q", out)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan string, 1)
	main := &cli.Main{Stdout: &servetest.Buffer{}, Stderr: &servetest.Buffer{}, Ready: ready,
		Getenv: servetest.Env(map[string]string{"EINVOICE_SECRET_KEY": servetest.SecretKey})}
	done := make(chan int, 1)
	go func() { done <- main.Run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0", "--db", dsn}) }()
	var addr string
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("sandbox exited with %d", code)
	}
	defer func() { cancel(); <-done }()

	login := func(id, secret string) (int, map[string]any) {
		form := url.Values{"client_id": {id}, "client_secret": {secret}, "grant_type": {"client_credentials"}}
		resp, err := http.PostForm("http://"+addr+"/connect/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	code, body := login(m[1], m[2])
	token, _ := body["access_token"].(string)
	parts := strings.Split(token, ".")
	if code != http.StatusOK || len(parts) != 3 {
		t.Fatalf("login = %d %v", code, body)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil || claims["TaxpayerTIN"] != "C20000000010" || claims["client_id"] != m[1] {
		t.Errorf("claims %s: %v", payload, err)
	}
	if code, body := login("not-registered", m[2]); code != http.StatusBadRequest || body["error"] != "invalid_client" {
		t.Errorf("unknown client: %d %v", code, body)
	}
	if code, body := login(m[1], "wrong"); code != http.StatusBadRequest || body["error"] != "invalid_client" {
		t.Errorf("wrong secret: %d %v", code, body)
	}
}
