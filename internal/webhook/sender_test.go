package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPrivateRefusedAtDial: without allowPrivate, the address actually
// dialled is checked (after DNS resolution), whatever the URL's host says.
func TestPrivateRefusedAtDial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()
	s := New(false)
	tr := s.client.Transport.(*http.Transport)
	_, err := tr.DialContext(context.Background(), "tcp", strings.TrimPrefix(srv.URL, "http://"))
	if !errors.Is(err, errPrivate) {
		t.Errorf("dial %s: %v, want the private address refused", srv.URL, err)
	}
	// A name that resolves to loopback is refused at the dial too.
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	if _, err := tr.DialContext(context.Background(), "tcp", "localhost"+port); !errors.Is(err, errPrivate) {
		t.Errorf("dial localhost%s: %v, want the private address refused", port, err)
	}
	if code, err := s.Send(context.Background(), srv.URL, nil, nil); err == nil {
		t.Errorf("Send to %s = %d, want refused", srv.URL, code)
	}
	if err := s.CheckURL(context.Background(), "http://localhost"+port); err == nil {
		t.Error("CheckURL(localhost) passed")
	}
	// Allowed, the same request goes.
	if code, err := New(true).Send(context.Background(), srv.URL, nil, []byte("{}")); err != nil || code != 200 {
		t.Errorf("allowed: %d %v", code, err)
	}
}

// TestSendLimits: redirects are answers, not followed; a long answer fails;
// the deadline of the context bounds the attempt.
func TestSendLimits(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/target", http.StatusTemporaryRedirect)
		case "/big":
			_, _ = w.Write(make([]byte, MaxResponse+1))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/ok":
			_, _ = w.Write(make([]byte, MaxResponse))
		}
	}))
	defer srv.Close()
	s := New(true)
	ctx := context.Background()
	if code, err := s.Send(ctx, srv.URL+"/redirect", nil, nil); code != http.StatusTemporaryRedirect || err != nil {
		t.Errorf("redirect: %d %v", code, err)
	}
	if code, err := s.Send(ctx, srv.URL+"/big", nil, nil); err == nil || code != 200 {
		t.Errorf("big: %d %v, want an error", code, err)
	}
	if code, err := s.Send(ctx, srv.URL+"/ok", nil, nil); err != nil || code != 200 {
		t.Errorf("64 KB: %d %v", code, err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if code, err := s.Send(short, srv.URL+"/slow", nil, nil); err == nil || code != 0 || time.Since(start) > 2*time.Second {
		t.Errorf("slow: %d %v after %s", code, err, time.Since(start))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range hits {
		if h == "/target" {
			t.Error("the redirect was followed")
		}
	}
}
