package einvoice_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func TestCheckWebhookURL(t *testing.T) {
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/x?a=1", false, true},
		{"http://203.0.113.9:8080/x", false, true},
		{"http://[2001:db8::1]/x", false, true},
		{"http://127.0.0.1:9/x", true, true},
		{"http://localhost/x", true, true},
		{"http://127.0.0.1:9/x", false, false},
		{"http://127.1/x", false, true}, // not an IP literal to netip: a name, checked at the dial
		{"http://LOCALHOST./x", false, false},
		{"http://api.localhost/x", false, false},
		{"http://10.0.0.1/x", false, false},
		{"http://100.64.0.1/x", false, false},
		{"http://[fe80::1]/x", false, false},
		{"http://[fc00::1]/x", false, false},
		{"http://[::]/x", false, false},
		{"http://0.0.0.0/x", false, false},
		{"http://224.0.0.1/x", false, false},
		{"https://u:p@hooks.example.com/", true, false},
		{"https://hooks.example.com/#frag", false, false},
		{"ftp://hooks.example.com/", true, false},
		{"https:///x", true, false},
		{"mailto:a@b.c", true, false},
		{"https://hooks.example.com/" + strings.Repeat("a", einvoice.MaxWebhookURL), false, false},
	} {
		if got := einvoice.CheckWebhookURL(tc.url, tc.allowPrivate) == ""; got != tc.ok {
			t.Errorf("CheckWebhookURL(%.60q, %v) ok = %v, want %v", tc.url, tc.allowPrivate, got, tc.ok)
		}
	}
}

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.53": false, "::ffff:10.1.1.1": false,
		"169.254.169.254": false, "192.168.1.1": false, "172.31.0.1": false, "::1": false} {
		if got := einvoice.PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}
