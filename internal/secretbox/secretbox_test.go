package secretbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// TestKeyFileRace: processes starting together on a new database all get
// the one key that ends up in the file, never an error (a half-written file
// read by another process was one) nor a key of their own.
func TestKeyFileRace(t *testing.T) {
	const rounds, racers = 200, 8
	dir := t.TempDir()
	for round := range rounds {
		path := filepath.Join(dir, fmt.Sprintf("round%d.db.secret", round))
		keys := make([][]byte, racers)
		errs := make([]error, racers)
		created := make([]bool, racers)
		var start, done sync.WaitGroup
		start.Add(1)
		for i := range racers {
			done.Go(func() {
				start.Wait()
				keys[i], created[i], errs[i] = LoadOrCreateKeyFile(path)
			})
		}
		start.Done()
		done.Wait()
		onDisk, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ParseKey(string(onDisk))
		if err != nil {
			t.Fatalf("round %d: the file holds %q: %v", round, onDisk, err)
		}
		creators := 0
		for i := range racers {
			if errs[i] != nil {
				t.Fatalf("round %d, racer %d: %v", round, i, errs[i])
			}
			if !bytes.Equal(keys[i], want) {
				t.Fatalf("round %d, racer %d got a key other than the file's", round, i)
			}
			if created[i] {
				creators++
			}
		}
		if creators != 1 {
			t.Fatalf("round %d: %d racers say they created the file, want 1", round, creators)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(left) > 0 {
			t.Fatalf("round %d: temporary files left: %v", round, left)
		}
	}
}
