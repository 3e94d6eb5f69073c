package client_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// sign makes an Einvoice-Signature header as the service does.
func sign(secret string, t time.Time, body string, more ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	h := "t=" + ts
	for _, s := range append([]string{secret}, more...) {
		mac := hmac.New(sha256.New, []byte(s))
		mac.Write([]byte(ts + "." + body))
		h += ",v1=" + hex.EncodeToString(mac.Sum(nil))
	}
	return h
}

func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := `{"id":"x"}`
	for _, tc := range []struct {
		name   string
		secret string
		header string
		body   string
		want   error
	}{
		{"signed", "s1", sign("s1", now, body), body, nil},
		{"second v1 entry (rotation)", "s1", sign("s0", now, body, "s1"), body, nil},
		{"first v1 entry (rotation)", "s0", sign("s0", now, body, "s1"), body, nil},
		{"other secret", "s2", sign("s1", now, body), body, client.ErrSignature},
		{"body changed", "s1", sign("s1", now, body), `{"id":"y"}`, client.ErrSignature},
		{"too old", "s1", sign("s1", now.Add(-6*time.Minute), body), body, client.ErrSignatureTime},
		{"in the future", "s1", sign("s1", now.Add(6*time.Minute), body), body, client.ErrSignatureTime},
		{"no time", "s1", "v1=00", body, client.ErrSignatureHeader},
		{"no signature", "s1", "t=1800000000", body, client.ErrSignatureHeader},
		{"garbage", "s1", "garbage", body, client.ErrSignatureHeader},
		{"empty", "s1", "", body, client.ErrSignatureHeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := client.VerifyWebhookAt(tc.secret, tc.header, []byte(tc.body), now, client.WebhookTolerance)
			if !errors.Is(err, tc.want) {
				t.Errorf("VerifyWebhookAt = %v, want %v", err, tc.want)
			}
		})
	}
}
