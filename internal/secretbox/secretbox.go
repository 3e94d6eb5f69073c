// Package secretbox encrypts tenant secrets at rest with AES-256-GCM under
// the service's secret key (EINVOICE_SECRET_KEY).
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the size of the secret key in bytes.
const KeySize = 32

// version prefixes every sealed value so that the scheme can change.
const version = "v1:"

// Box seals and opens secrets under one key.
type Box struct {
	aead cipher.AEAD
}

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secret key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	return &Box{aead: aead}, nil
}

// ParseKey decodes a key given in standard base64, as EINVOICE_SECRET_KEY is.
func ParseKey(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(key) != KeySize {
		return nil, errors.New("EINVOICE_SECRET_KEY must be 32 random bytes in standard base64: generate one with `head -c 32 /dev/urandom | base64`")
	}
	return key, nil
}

// LoadOrCreateKeyFile reads the base64 key in path, creating the file with a
// new random key (mode 0600) when it does not exist. It reports whether it
// created the file. Processes racing to create it all get the one key that
// wins: the file appears whole, under its name, or not at all.
func LoadOrCreateKeyFile(path string) ([]byte, bool, error) {
	key, err := readKeyFile(path)
	if !errors.Is(err, os.ErrNotExist) {
		return key, false, err
	}
	key, err = createKeyFile(path)
	if errors.Is(err, os.ErrExist) { // another process created it first
		key, err = readKeyFile(path)
		return key, false, err
	}
	if err != nil {
		return nil, false, err
	}
	return key, true, nil
}

// readKeyFile reads the base64 key in path (an error matching os.ErrNotExist
// when there is no such file).
func readKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read secret key file: %w", err)
	}
	key, err := ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	return key, nil
}

// createKeyFile writes a new random key into a temporary file beside path,
// flushes it to disk and links it to path, which fails with os.ErrExist when
// path exists: a reader never sees the file empty or half-written.
func createKeyFile(path string) ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate secret key: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write secret key file: %w", err)
	}
	if err := os.Link(f.Name(), path); err != nil {
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	return key, nil
}

// Seal encrypts plaintext; an empty plaintext seals to "".
func (b *Box) Seal(plaintext []byte) (string, error) {
	if len(plaintext) == 0 {
		return "", nil
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	out := b.aead.Seal(nonce, nonce, plaintext, nil)
	return version + base64.StdEncoding.EncodeToString(out), nil
}

// Open decrypts what Seal returned; "" opens to nil.
func (b *Box) Open(sealed string) ([]byte, error) {
	if sealed == "" {
		return nil, nil
	}
	rest, ok := strings.CutPrefix(sealed, version)
	if !ok {
		return nil, errors.New("unknown sealed-secret format")
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return nil, errors.New("malformed sealed secret")
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, errors.New("cannot decrypt secret: wrong secret key or corrupted value")
	}
	return plain, nil
}
