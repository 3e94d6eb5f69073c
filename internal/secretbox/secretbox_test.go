package secretbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"", "s", "client-secret-value", strings.Repeat("x", 10000)} {
		sealed, err := b.Seal([]byte(plain))
		if err != nil {
			t.Fatal(err)
		}
		if len(plain) > 8 && strings.Contains(sealed, plain) {
			t.Errorf("sealed value contains the plaintext")
		}
		got, err := b.Open(sealed)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if string(got) != plain {
			t.Errorf("Open(Seal(%q)) = %q", plain, got)
		}
	}
	sealed, _ := b.Seal([]byte("secret"))
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(sealed); err == nil {
		t.Errorf("Open with another key succeeded")
	}
	if _, err := b.Open(sealed[:len(sealed)-4] + "AAAA"); err == nil {
		t.Errorf("Open of a tampered value succeeded")
	}
	if _, err := b.Open("garbage"); err == nil {
		t.Errorf("Open of garbage succeeded")
	}
}

func TestKeys(t *testing.T) {
	if _, err := New([]byte("short")); err == nil {
		t.Errorf("New accepted a short key")
	}
	for _, bad := range []string{"", "not base64!", "c2hvcnQ="} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) succeeded", bad)
		}
	}
	path := filepath.Join(t.TempDir(), "einvoice.db.secret")
	k1, created, err := LoadOrCreateKeyFile(path)
	if err != nil || !created || len(k1) != KeySize {
		t.Fatalf("first LoadOrCreateKeyFile = %d bytes, %v, %v", len(k1), created, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode = %v, want 0600", fi.Mode().Perm())
	}
	k2, created, err := LoadOrCreateKeyFile(path)
	if err != nil || created || !bytes.Equal(k1, k2) {
		t.Fatalf("second LoadOrCreateKeyFile = %v, %v; want the same key", created, err)
	}
}
