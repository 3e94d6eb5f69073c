package cli

import (
	"flag"
	"io"
	"net"
	"strings"
	"testing"
)

// TestPublicURL: --public-url (or EINVOICE_PUBLIC_URL) is the base of
// receipts' request URLs, checked at start; by default http:// and the
// address listened on, 127.0.0.1 for an unspecified host.
func TestPublicURL(t *testing.T) {
	t.Parallel()
	cfg, err := envDefaults(env(map[string]string{"EINVOICE_PUBLIC_URL": "https://env.example.com"}))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.serveFlags(fs)
	if err := fs.Parse([]string{"--public-url", "https://shop.example.com/einvoice/"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	if got := cfg.publicURL(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}); got != "https://shop.example.com/einvoice" {
		t.Errorf("publicURL = %q", got)
	}
	for _, bad := range []string{"shop.example.com", "/einvoice", "ftp://shop.example.com", "https://", "https://shop.example.com/?a=1",
		"https://shop.example.com/?", "https://shop.example.com/#x", "https://user:pw@shop.example.com", "http://[::1"} {
		cfg.PublicURL = bad
		if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "public URL") {
			t.Errorf("public URL %q: %v, want refused", bad, err)
		}
	}
	cfg.PublicURL = ""
	for addr, want := range map[string]string{
		"0.0.0.0:8080":      "http://127.0.0.1:8080",
		"[::]:9000":         "http://127.0.0.1:9000",
		"127.0.0.1:41234":   "http://127.0.0.1:41234",
		"192.168.1.20:8080": "http://192.168.1.20:8080",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.publicURL(a); got != want {
			t.Errorf("publicURL for %s = %q, want %q", addr, got, want)
		}
	}
}
