package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's signed time may be from now for
// VerifyWebhook: a replay of an old delivery fails.
const WebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook.
var (
	ErrSignatureHeader = errors.New("einvoice: malformed Einvoice-Signature header")
	ErrSignatureTime   = errors.New("einvoice: webhook signature too old or in the future")
	ErrSignature       = errors.New("einvoice: no webhook signature matches the secret")
)

// VerifyWebhook checks a delivery: header is its Einvoice-Signature
// ("t=<unix seconds>,v1=<hex>[,v1=<hex>]"), body the request body as
// received (unparsed). It succeeds when one v1 entry is the HMAC-SHA256 of
// "<t>.<body>" under secret and t is within WebhookTolerance of now.
func VerifyWebhook(secret, header string, body []byte) error {
	return VerifyWebhookAt(secret, header, body, time.Now(), WebhookTolerance)
}

// VerifyWebhookAt is VerifyWebhook at the time now with the tolerance given.
func VerifyWebhookAt(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrSignatureHeader
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrSignatureHeader
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrSignatureTime
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return ErrSignature
}
