package client_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/einvoice/einvoice/client"
)

// A webhook receiver: it checks the signature of every delivery before
// trusting its body, and answers 2xx quickly (work that takes long belongs
// in a queue of its own: a delivery not answered within 10 seconds is sent
// again).
func ExampleVerifyWebhook() {
	secret := "whsec_..." // from Webhooks.Create (or RotateSecret)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := client.VerifyWebhook(secret, r.Header.Get("Einvoice-Signature"), body); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		// The same event may come twice (at least once): skip an
		// Einvoice-Event-Id already handled.
		fmt.Println(r.Header.Get("Einvoice-Event-Type"))
		w.WriteHeader(http.StatusNoContent)
	})

	// What the service sends, signed as it signs (here by hand).
	srv := httptest.NewServer(handler)
	defer srv.Close()
	body := `{"id":"0194...","type":"document.valid","createdAt":"2026-11-24T01:00:00Z","data":{}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set("Einvoice-Event-Type", "document.valid")
	req.Header.Set("Einvoice-Signature", sign(secret, time.Now(), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// document.valid
	// 204
}
