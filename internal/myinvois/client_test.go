package myinvois

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

func TestRedirectNotFollowed(t *testing.T) {
	f := newFake(t)
	var (
		mu     sync.Mutex
		hitGet bool
	)
	f.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	f.mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hitGet = true
		mu.Unlock()
	})
	c := New(Options{Logger: testLogger(t)})
	_, err := c.Submit(context.Background(), f.creds(), nil)
	if err == nil {
		t.Fatal("no documents: no error")
	}
	_, err = c.Submit(context.Background(), f.creds(), oneDoc())
	if ce := callErr(t, err); ce.Status != http.StatusFound {
		t.Errorf("CallError = %+v, want the 302", ce)
	}
	mu.Lock()
	defer mu.Unlock()
	if hitGet {
		t.Error("the redirect was followed")
	}
}

func TestOnCallHook(t *testing.T) {
	f := newFake(t)
	detailsOK(f, nil, nil)
	type obs struct {
		endpoint string
		status   int
	}
	var (
		mu  sync.Mutex
		got []obs
	)
	c := New(Options{Logger: testLogger(t), OnCall: func(endpoint string, status int, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, obs{endpoint, status})
		if d <= 0 {
			t.Errorf("%s: duration %v", endpoint, d)
		}
	}})
	if _, err := c.GetDocumentDetails(context.Background(), f.creds(), "X"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []obs{{EndpointLogin, 200}, {EndpointDocumentDetails, 200}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("OnCall saw %v, want %v", got, want)
	}
}
