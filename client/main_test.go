package client_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/cli"
)

// The tests and examples of this package run against a real service: one
// `einvoice serve` on a temporary SQLite file, started once by TestMain.
var (
	serverURL string // the service's base URL
	apiKey    string // its first tenant's read-write key
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "einvoice-client-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	url, key, stop, err := serve(filepath.Join(dir, "einvoice.db"), "--rate-limit", "1000000", "--sandbox-delay", "0", "--webhook-allow-private", "--webhook-retry-base", "100ms")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverURL, apiKey = url, key
	code := m.Run()
	stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var demoKey = regexp.MustCompile(`eik_[A-Za-z0-9_-]{43}`)

// serve starts `einvoice serve` on a loopback port with its first key.
func serve(db string, args ...string) (url, key string, stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	getenv := func(k string) string {
		return map[string]string{"EINVOICE_SECRET_KEY": "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio=", "EINVOICE_LOG_LEVEL": "warn"}[k]
	}
	m := &cli.Main{Stdout: stdout, Stderr: stderr, Ready: ready, Getenv: getenv}
	done := make(chan int, 1)
	go func() { done <- m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, args...)) }()
	select {
	case addr := <-ready:
		stop = func() {
			cancel()
			<-done
		}
		return "http://" + addr, demoKey.FindString(stdout.String()), stop, nil
	case code := <-done:
		cancel()
		return "", "", nil, fmt.Errorf("serve exited with %d: %s", code, stderr.String())
	case <-time.After(60 * time.Second):
		cancel()
		return "", "", nil, fmt.Errorf("serve did not listen within 60s: %s", stderr.String())
	}
}
