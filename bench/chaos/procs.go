package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// buildBinary builds cmd/einvoice into a temporary folder (or takes
// -bin) and returns its path and a function that removes it.
func buildBinary(ctx context.Context, cfg config, logf func(string, ...any)) (string, func(), error) {
	if cfg.bin != "" {
		return cfg.bin, func() {}, nil
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", nil, fmt.Errorf("go env GOMOD = %q, %v: run it inside the einvoice module", gomod, err)
	}
	dir, err := os.MkdirTemp("", "einvoice-chaos-bin-")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "einvoice")
	args := []string{"build", "-o", bin}
	if cfg.race {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/einvoice")
	logf("building: go %s", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// proc is one child process (a sandbox or a service replica), started
// again with the same command line after each kill. Its stdout and stderr
// go to one log file; its stdout is also kept (the demo key is printed
// there).
type proc struct {
	name    string
	args    []string
	env     []string
	logPath string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the current run has exited
	killing bool          // the harness is ending the current run
	runs    int
	exits   []string // how each run ended that the harness did not end
	stdout  bytes.Buffer
}

// syncWriter serialises writes to the process's stdout buffer.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// start starts a new run of the process.
func (p *proc) start() error {
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: log: %w", p.name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs++
	fmt.Fprintf(log, "=== chaos: run %d of %s at %s\n", p.runs, p.name, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Env = p.env
	cmd.Stdout = io.MultiWriter(log, syncWriter{&p.mu, &p.stdout})
	cmd.Stderr = log
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done, p.killing = cmd, done, false
	go func() {
		err := cmd.Wait()
		log.Close()
		p.mu.Lock()
		if !p.killing {
			p.exits = append(p.exits, fmt.Sprintf("run %d exited on its own: %v", p.runs, err))
		}
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// kill ends the current run with SIGKILL and waits for it.
func (p *proc) kill() error {
	return p.end(syscall.SIGKILL, 10*time.Second)
}

// stop ends the current run with SIGTERM (a graceful stop) and waits up to
// wait; a run that does not stop in time is killed, and an exit other than
// 0 is recorded.
func (p *proc) stop(wait time.Duration) error {
	err := p.end(syscall.SIGTERM, wait)
	if errors.Is(err, errTimeout) {
		p.noteExit(fmt.Sprintf("did not stop within %s of SIGTERM", wait))
		return p.kill()
	}
	p.mu.Lock()
	state := p.cmd.ProcessState
	p.mu.Unlock()
	if err == nil && state != nil && !state.Success() {
		p.noteExit(fmt.Sprintf("stopped by SIGTERM with %v", state))
	}
	return err
}

var errTimeout = errors.New("timed out")

// end sends sig to the current run and waits up to wait for its exit.
func (p *proc) end(sig syscall.Signal, wait time.Duration) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.killing = true
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	default:
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal %s: %w", p.name, err)
	}
	select {
	case <-done:
		return nil
	case <-time.After(wait):
		return fmt.Errorf("%s after %v: %w", p.name, sig, errTimeout)
	}
}

// noteExit records an exit the harness did not ask for.
func (p *proc) noteExit(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exits = append(p.exits, s)
}

// unexpectedExits returns how runs ended that the harness did not end.
func (p *proc) unexpectedExits() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.exits...)
}

// output returns what the process printed to stdout, over all its runs.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// exited reports whether the current run has exited.
func (p *proc) exited() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// freePort returns a loopback address that nothing listens on now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitHTTP waits until GET url answers 200, the process exits, or wait
// passes.
func waitHTTP(ctx context.Context, p *proc, url string, wait time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(wait)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		switch {
		case p.exited():
			return fmt.Errorf("%s exited before %s answered (see %s)", p.name, url, p.logPath)
		case time.Now().After(deadline):
			return fmt.Errorf("%s: %s did not answer 200 within %s (see %s)", p.name, url, wait, p.logPath)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		time.Sleep(50 * time.Millisecond)
	}
}
