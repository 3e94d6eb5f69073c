package servetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The binary of this test process, built once (Build) and removed by
// RemoveBuilt.
var built struct {
	sync.Mutex
	dir, bin string
}

// Build builds cmd/einvoice once per test process (with the race detector
// when the tests run with it) and returns the binary's path. Under -short
// (the inner loop: no binary builds) the test is skipped. The package's
// TestMain calls RemoveBuilt when its tests are done.
func Build(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no binary builds")
	}
	built.Lock()
	defer built.Unlock()
	if built.bin != "" {
		return built.bin
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		t.Fatalf("go env GOMOD = %q, %v: cannot find the module root", gomod, err)
	}
	dir, err := os.MkdirTemp("", "einvoice-test-bin-")
	if err != nil {
		t.Fatalf("a folder for the binary: %v", err)
	}
	bin := filepath.Join(dir, "einvoice")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./cmd/einvoice")...)
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	built.dir, built.bin = dir, bin
	return bin
}

// RemoveBuilt removes the binary Build made, if any: for TestMain, after
// m.Run.
func RemoveBuilt() {
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.bin = "", ""
	}
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// ChildEnv is the environment of the processes: this one's, without any
// EINVOICE_* setting, plus the secret key, and the consolidation scheduler
// off (a test that wants it passes --auto-consolidate).
func ChildEnv() []string {
	return append(EnvWithoutSettings(), "EINVOICE_SECRET_KEY="+SecretKey, "EINVOICE_AUTO_CONSOLIDATE=false")
}

// EnvWithoutSettings is this process's environment without any EINVOICE_*
// setting.
func EnvWithoutSettings() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "EINVOICE_") {
			env = append(env, kv)
		}
	}
	return env
}

// Replica is one `einvoice serve` process of the real binary.
type Replica struct {
	Name      string
	URL       string // set by WaitListening
	cmd       *exec.Cmd
	stdout    *Buffer
	stderr    *Buffer
	listening chan string
	done      chan struct{} // closed once the process has exited and its output is read
	killed    atomic.Bool   // set just before it is killed: transport errors are expected from then on
}

// StartReplicas starts n serve processes at once on dsn and waits until each
// listens. They are killed when the test ends.
func StartReplicas(t testing.TB, bin, dsn string, n int, args ...string) []*Replica {
	t.Helper()
	rs := make([]*Replica, 0, n)
	t.Cleanup(func() { StopReplicas(t, rs) })
	for i := range n {
		rs = append(rs, StartReplica(t, bin, fmt.Sprintf("replica %d", i+1), ChildEnv(), dsn, args...))
	}
	for _, r := range rs {
		r.WaitListening(t)
	}
	return rs
}

// StartReplica starts `einvoice serve` on dsn, on a loopback port, with the
// environment env and the flags args (among them --log-format json, for
// WaitListening). The caller stops it with StopReplicas; it is killed when
// the test ends in any case.
func StartReplica(t testing.TB, bin, name string, env []string, dsn string, args ...string) *Replica {
	t.Helper()
	r := &Replica{Name: name, stdout: &Buffer{}, stderr: &Buffer{},
		listening: make(chan string, 1), done: make(chan struct{})}
	r.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}, args...)...)
	r.cmd.Env = env
	r.cmd.Stdout = r.stdout
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", r.Name, err)
	}
	go r.readStderr(pipe)
	t.Cleanup(func() { r.Kill(t) })
	return r
}

// WaitListening waits until the process listens and sets its URL.
func (r *Replica) WaitListening(t testing.TB) {
	t.Helper()
	select {
	case addr := <-r.listening:
		r.URL = "http://" + addr
	case <-r.done:
		t.Fatalf("%s exited before listening (%v):\n%s", r.Name, r.cmd.ProcessState, r.Tail())
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not listen within 60s:\n%s", r.Name, r.Tail())
	}
}

// readStderr keeps the process's log, finds its "listening" line, and
// reaps the process once its stderr closes.
func (r *Replica) readStderr(pipe io.Reader) {
	br := bufio.NewReader(pipe)
	found := false
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			_, _ = r.stderr.Write(line)
			var rec struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if !found && json.Unmarshal(line, &rec) == nil && rec.Msg == "listening" && rec.Addr != "" {
				found = true
				r.listening <- rec.Addr
			}
		}
		if err != nil {
			break
		}
	}
	_ = r.cmd.Wait()
	close(r.done)
}

// Kill ends the process with SIGKILL (no graceful shutdown) and waits for it.
func (r *Replica) Kill(t testing.TB) {
	t.Helper()
	r.killed.Store(true)
	select {
	case <-r.done:
		return
	default:
	}
	if err := r.cmd.Process.Kill(); err != nil {
		t.Errorf("kill %s: %v", r.Name, err)
	}
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not exit within 30s of SIGKILL", r.Name)
	}
}

// Killed reports whether Kill was called: transport errors are expected
// from then on.
func (r *Replica) Killed() bool { return r.killed.Load() }

// Stdout is what the process printed on stdout so far.
func (r *Replica) Stdout() string { return r.stdout.String() }

// Stderr is the process's log so far.
func (r *Replica) Stderr() string { return r.stderr.String() }

// Tail is the end of the process's log.
func (r *Replica) Tail() string {
	s := r.stderr.String()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

// StopReplicas kills every process, checks their logs and that exactly one
// printed a demo key, and shows the end of each log when the test failed.
func StopReplicas(t testing.TB, rs []*Replica) {
	for _, r := range rs {
		r.Kill(t)
	}
	if len(rs) == 0 {
		return
	}
	var printed []string // "replica N: key"
	for _, r := range rs {
		seen := map[string]bool{}
		for _, k := range KeyPattern.FindAllString(r.stdout.String(), -1) {
			if !seen[k] { // the key is shown, then used in a curl line
				seen[k] = true
				printed = append(printed, r.Name+": "+k[:8]+"...")
			}
		}
		if log := r.stderr.String(); strings.Contains(log, "panic") || strings.Contains(log, "DATA RACE") {
			i := max(strings.Index(log, "panic"), strings.Index(log, "DATA RACE"))
			t.Errorf("%s logged a panic or a data race:\n%.4000s", r.Name, log[max(0, i-200):])
		}
	}
	if len(printed) != 1 {
		t.Errorf("demo keys printed: %v, want exactly one key printed by exactly one process", printed)
	}
	if t.Failed() {
		for _, r := range rs {
			t.Logf("--- end of the log of %s (%s, %v):\n%s", r.Name, r.URL, r.cmd.ProcessState, r.Tail())
		}
	}
}

var demoTenantID = regexp.MustCompile(`\(id ([0-9a-f-]{36})\)`)

// ReplicasDemoKey waits for the demo key that one of the processes printed
// and returns it with the demo tenant's id.
func ReplicasDemoKey(t testing.TB, rs []*Replica) (key, tenantID string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, r := range rs {
			out := r.stdout.String()
			if k := KeyPattern.FindString(out); k != "" {
				if m := demoTenantID.FindStringSubmatch(out); m != nil {
					return k, m[1]
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process printed a demo key and tenant id within 10s of listening")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
