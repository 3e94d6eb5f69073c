package cli_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// TestQuietStart: a first start on every interface prints the dashboard's
// address in its banner, warns about plain HTTP on every interface, logs
// the migrations in one line, and then, idle (the received-documents
// poller calling the built-in sandbox every 10 s), logs nothing at info.
func TestQuietStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &servetest.Buffer{}, &servetest.Buffer{}
	ready := make(chan string, 1)
	m := &cli.Main{Stdout: stdout, Stderr: stderr, Ready: ready,
		Getenv: servetest.Env(map[string]string{"EINVOICE_SECRET_KEY": servetest.SecretKey, "EINVOICE_RECEIVED_POLL_INTERVAL": "200ms"})}
	done := make(chan int, 1)
	go func() { done <- m.Run(ctx, []string{"serve", "--addr", "0.0.0.0:0", "--db", testdb.SQLite(t)}) }()
	var addr string
	select {
	case addr = <-ready:
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("serve did not listen:\n%s", stderr.String())
	}
	time.Sleep(time.Second) // five passes of the poller
	cancel()
	<-done
	_, port, _ := net.SplitHostPort(addr)
	if out := stdout.String(); !strings.Contains(out, "http://localhost:"+port+"/app") || strings.Contains(out, "localhost:0") {
		t.Errorf("the banner does not name the dashboard at the port it listens on (%s):\n%s", port, out)
	}
	logs := stderr.String()
	if !strings.Contains(logs, "listening on every network interface over plain HTTP") {
		t.Errorf("no warning about every interface:\n%s", logs)
	}
	if n := strings.Count(logs, "migrations applied"); n != 1 || strings.Contains(logs, "migration applied") {
		t.Errorf("%d summary lines of the migrations (want 1, and no line per migration):\n%s", n, logs)
	}
	if strings.Contains(logs, "route=/sandbox/") {
		t.Errorf("the built-in sandbox's access lines are logged at info:\n%s", logs)
	}
}
