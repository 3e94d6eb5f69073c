package cli_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// maxReadmeLines is how long the README may be: a front door, the rest in
// docs/.
const maxReadmeLines = 200

// TestDocsBlocks: every ```sh and ```bash block of README.md and of every
// page under docs/ works when pasted in turn into bash, and every
// `# => ...` comment shows fields and values (or text) of the answer to
// the commands above it.
//
// Each page runs on its own: its blocks in order, in one bash session, in
// a fresh folder, against a fresh `serve` (the real binary, a new SQLite
// file ./einvoice.db in that folder, every setting at its default) with its
// demo tenant, on which the README's blocks have run first (in a bash
// session of their own), as they have for a reader who comes from the
// README. So a page is a unit a reader can follow alone after the README:
// it sets every variable it uses and writes every file it sends, which the
// runs check (bash's `set -u`, a fresh folder), it does not trip over what
// the README made (a second buyer found where the page shows one), and
// pages never depend on the order in which they run. They run in parallel
// (go test's -parallel, the number of CPUs by default), the sandbox's
// verdicts and the received-documents poller being their longest waits. The lines run as written, but for those the pages ask the reader
// to fill in (KEY, API) and `go install`, for which the binary under test
// on PATH stands. PATH holds nothing else but a plain Debian's commands,
// curl and jq (plainDebianTools). The `einvoice` commands of a page run in
// its folder, as the reader's run where `serve` runs, on its database.
//
// A block that cannot run (it starts a server on a fixed port, needs
// PostgreSQL) is marked on its page and listed in notRunBlocks; the test
// logs the blocks it skipped. It needs the binary, so it skips under
// -short; TestDocsRules checks the rules that need no binary.
func TestDocsBlocks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the docs' blocks run against the built binary: not under -short")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the docs' blocks need %s, which is not on PATH", tool)
		}
	}
	if err := exec.Command("curl", "--fail-with-body", "--version").Run(); err != nil {
		t.Skipf("the docs' blocks need curl 7.76 or later (--fail-with-body): %v", err)
	}
	pages := loadDocPages(t)
	var run, notRun []string
	for _, p := range pages {
		for _, b := range p.blocks {
			switch {
			case b.runs():
				run = append(run, b.where(p.path))
			case b.shell():
				notRun = append(notRun, b.where(p.path)+": "+b.norun)
			}
		}
	}
	t.Logf("%d shell blocks run; %d not run:\n  %s", len(run), len(notRun), strings.Join(notRun, "\n  "))
	if len(run) < 15 {
		t.Fatalf("%d shell blocks to run, want the pages' blocks found: %v", len(run), run)
	}

	bin := servetest.Build(t)
	tools := plainDebianPath(t, bin)
	readme := pages[0].runLines()
	for _, p := range pages {
		lines := p.runLines()
		if len(lines) == 0 {
			continue
		}
		var before []shellLine
		if p.path != "README.md" {
			before = readme
		}
		t.Run(filepath.Base(p.path), func(t *testing.T) {
			t.Parallel()
			runDocPage(t, bin, tools, p.path, before, lines)
		})
	}
}

// docRun is a page's run, for the checks of its own.
type docRun struct {
	dir     string // the folder the blocks ran in
	url     string // the service's base URL
	key     string // the demo tenant's key
	banner  string // what serve printed
	stdout  string
	stderr  string
	replica *servetest.Replica
}

// pageChecks check, beyond the `# =>` comments, where a page's blocks left
// the service and the folder.
var pageChecks = map[string]func(t *testing.T, r docRun){
	"README.md":          checkReadmeRun,
	"docs/api.md":        checkAPIRun,
	"docs/webhooks.md":   checkWebhooksRun,
	"docs/receipts.md":   checkReceiptsRun,
	"docs/received.md":   checkReceivedRun,
	"docs/going-live.md": checkGoingLiveRun,
}

// runDocPage runs a page's lines against a fresh serve, after the lines
// before (the README's, unchecked), and checks the answers.
func runDocPage(t *testing.T, bin, tools, page string, before, lines []shellLine) {
	dir := t.TempDir()
	rs := servetest.StartReplicas(t, bin, filepath.Join(dir, "einvoice.db"), 1, "--log-format", "json")
	key, _ := servetest.ReplicasDemoKey(t, rs)
	fills := []lineFill{
		{regexp.MustCompile(`^KEY=eik_\.\.\.(\s+#.*)?$`), "KEY=" + key},
		{regexp.MustCompile(`^API=http://localhost:8080/api/v1$`), "API=" + rs[0].URL + "/api/v1"},
		{regexp.MustCompile(`^go install \./cmd/einvoice$`), "true # go install: the binary under test is on PATH"},
	}
	if len(before) > 0 {
		script, _ := docScript(fillIn(before, fills))
		runBash(t, dir, script, "PATH="+tools)
	}
	script, exps := docScript(fillIn(lines, fills))
	stdout, stderr := runBash(t, dir, script, "PATH="+tools)
	pieces := outputPieces(stdout)
	for _, e := range exps {
		for _, p := range checkAnswer(e.text, pieces[e.piece]) {
			t.Errorf("%s: %q: %s", e.at, e.line, p)
		}
	}
	if check := pageChecks[page]; check != nil {
		check(t, docRun{dir: dir, url: rs[0].URL, key: key, banner: rs[0].Stdout(), stdout: stdout, stderr: stderr, replica: rs[0]})
	}
}

// lineFill replaces the page's lines that match with what the reader is
// told to put there.
type lineFill struct {
	line *regexp.Regexp
	with string
}

// fillIn applies the fills to the lines that match them.
func fillIn(lines []shellLine, fills []lineFill) []shellLine {
	out := slices.Clone(lines)
	for i, l := range out {
		for _, f := range fills {
			if f.line.MatchString(l.text) {
				out[i].text = f.with
			}
		}
	}
	return out
}

// plainDebianPath returns a folder holding the commands of
// plainDebianTools found on this machine and the einvoice binary: the PATH
// of the pages' blocks, so that one using anything else fails.
func plainDebianPath(t *testing.T, bin string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"einvoice": bin}
	for _, tool := range plainDebianTools {
		if p, err := exec.LookPath(tool); err == nil {
			links[tool] = p
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runBash runs the script in one bash session in dir, stopping at the first
// failing command, and returns its output. A run that does not end within
// five minutes is stopped: the pages wait for the sandbox's verdicts (2 s)
// and the received-documents poller (10 s), nothing longer.
func runBash(t *testing.T, dir, script string, env ...string) (stdout, stderr string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	prologue := "set -euo pipefail\nshopt -s inherit_errexit\ntrap 'echo \"the line failed (status $?): $BASH_COMMAND\" >&2' ERR\n"
	cmd := exec.CommandContext(ctx, bash, "-c", prologue+script)
	cmd.Dir = dir
	cmd.Env = append(servetest.ChildEnv(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the lines did not finish within 5 minutes\nstdout: %.3000s\nstderr: %.3000s", out.String(), errOut.String())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		shown := strings.ReplaceAll(out.String(), "\n"+outputMarker+"\n", "\n")
		t.Fatalf("the lines failed (%v):\nstderr: %s\nstdout (end): %s", err, errOut.String(), tailOf(shown, 3000))
	} else if err != nil {
		t.Fatalf("run bash: %v", err)
	}
	return out.String(), errOut.String()
}

// tailOf returns the last n bytes of s.
func tailOf(s string, n int) string {
	return s[max(0, len(s)-n):]
}

// checkReadmeRun checks the README's promises: the banner names the
// dashboard, a browser's GET / leads to it, and the first invoice is Valid.
func checkReadmeRun(t *testing.T, r docRun) {
	// The test's serve listens on 127.0.0.1:0, which the banner shows as
	// is (port 0): the dashboard's address is its line ending in /app.
	if !regexp.MustCompile(`(?m)^\s+http://127\.0\.0\.1:[0-9]+/app$`).MatchString(r.banner) || !strings.Contains(r.banner, r.key) {
		t.Errorf("serve's banner does not show the key and the dashboard's address (http://127.0.0.1:PORT/app):\n%s", r.banner)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, r.url+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("GET / as a browser: %v", err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/app") {
		t.Errorf("GET / as a browser: %d to %q, want 303 to the dashboard (/app...)", resp.StatusCode, loc)
	}
	checkDocumentStatus(t, r, "INV-0001", client.StatusValid)
}

// checkAPIRun checks the files the walkthrough saves (the QR code as a PNG,
// the visual e-invoice as a PDF) and, through the API, where it left the
// demo tenant: the buyer ready under a TIN of its own, INV-2026-0001
// validated and then cancelled, and the two invoices of the bulk submit
// accepted by the authority. Its tenants-and-keys lines listed the new
// tenant and revoked its key.
func checkAPIRun(t *testing.T, r docRun) {
	checkFileStarts(t, r.dir, "qr.png", "\x89PNG\r\n\x1a\n")
	checkFileStarts(t, r.dir, "INV-2026-0001.pdf", "%PDF-")
	c, ctx := newAPIClient(t, r.url, r.key), t.Context()
	profile, err := c.Profile.Get(ctx)
	if err != nil {
		t.Fatalf("GET /profile: %v", err)
	}
	buyers, err := c.Buyers.List(ctx, &client.PartyListOptions{Search: "hebat"})
	if err != nil {
		t.Fatalf("GET /buyers?search=hebat: %v", err)
	}
	if len(buyers.Items) != 1 {
		t.Fatalf("buyers matching hebat: %+v, want one", buyers.Items)
	}
	if b := buyers.Items[0]; !b.IsReady || b.TIN == profile.TIN {
		t.Errorf("the walkthrough's buyer: isReady %v, TIN %v (the tenant's is %v); want ready, with a TIN of its own", b.IsReady, b.TIN, profile.TIN)
	}
	cancelled := checkDocumentStatus(t, r, "INV-2026-0001", client.StatusCancelled)
	checkDocumentStatus(t, r, "INV-2026-0002", client.StatusSubmitted, client.StatusValid)
	checkDocumentStatus(t, r, "INV-2026-0003", client.StatusSubmitted, client.StatusValid)
	if cancelled != nil {
		var path []client.Status
		for _, e := range cancelled.History {
			path = append(path, e.Status)
		}
		if i := slices.Index(path, client.StatusValid); i < 0 || !slices.Contains(path[i:], client.StatusCancelled) {
			t.Errorf("INV-2026-0001 went %v, want Valid and then Cancelled", path)
		}
	}
	if !strings.Contains(r.stdout, "Hebat Group Sdn. Bhd.") || !regexp.MustCompile(`einvoice: key [0-9a-f-]{36} revoked`).MatchString(r.stderr) {
		t.Errorf("the tenants-and-keys lines did not list the new tenant or revoke its key:\nstdout %.2000s\nstderr %.2000s", r.stdout, r.stderr)
	}
}

// checkWebhooksRun checks that the webhook is there and that the retried
// POST with the same Idempotency-Key made one buyer, not two.
func checkWebhooksRun(t *testing.T, r docRun) {
	c, ctx := newAPIClient(t, r.url, r.key), t.Context()
	hooks, err := c.Webhooks.List(ctx, nil)
	if err != nil {
		t.Fatalf("GET /webhooks: %v", err)
	}
	if len(hooks.Items) != 1 || hooks.Items[0].URL != "https://erp.example.com/einvoice" {
		t.Errorf("webhooks: %+v, want the page's one", hooks.Items)
	}
	buyers, err := c.Buyers.List(ctx, &client.PartyListOptions{Search: "retry"})
	if err != nil {
		t.Fatalf("GET /buyers?search=retry: %v", err)
	}
	if len(buyers.Items) != 1 {
		t.Errorf("buyers matching retry: %d, want one: the retry with the same key must not create another", len(buyers.Items))
	}
}

// checkReceiptsRun checks the receipt's QR code and, through the API, that
// the counter's invoice and the consolidated one exist.
func checkReceiptsRun(t *testing.T, r docRun) {
	checkFileStarts(t, r.dir, "receipt-qr.png", "\x89PNG\r\n\x1a\n")
	checkDocumentStatus(t, r, "POS1-000123", client.StatusSubmitted, client.StatusValid)
	checkDocumentStatus(t, r, "POS1-000001", client.StatusSubmitting, client.StatusSubmitted, client.StatusValid)
}

// checkReceivedRun checks that the demo tenant saw the supplier's invoice
// and asked for its rejection.
func checkReceivedRun(t *testing.T, r docRun) {
	if !strings.Contains(r.stdout, `"rejectionRequestedAt"`) || !strings.Contains(r.stdout, `"MAJU-0001"`) {
		t.Errorf("the received-documents lines did not show the received invoice rejected:\nstdout %.3000s", r.stdout)
	}
}

// checkGoingLiveRun checks the files the page writes and, through the API,
// that the tenant signs with the certificate it uploaded.
func checkGoingLiveRun(t *testing.T, r docRun) {
	checkFileStarts(t, r.dir, "sandbox-ca.pem", "-----BEGIN CERTIFICATE-----")
	checkFileStarts(t, r.dir, "signing.pem", "-----BEGIN CERTIFICATE-----")
	checkFileStarts(t, r.dir, "sandbox.db", "SQLite format 3\x00")
	c := newAPIClient(t, r.url, r.key)
	profile, err := c.Profile.Get(t.Context())
	if err != nil {
		t.Fatalf("GET /profile: %v", err)
	}
	if !profile.Authority.HasSigningCertificate {
		t.Errorf("the profile has no signing certificate after the page uploaded one: %+v", profile.Authority)
	}
}

// checkFileStarts checks that the blocks saved the file name in dir, and
// that it starts with magic.
func checkFileStarts(t *testing.T, dir, name, magic string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Errorf("the page saved no %s: %v", name, err)
		return
	}
	if !bytes.HasPrefix(b, []byte(magic)) {
		t.Errorf("%s starts with %.40q, want %q", name, b, magic)
	}
}

// checkDocumentStatus checks, through the API, that the one document with
// the serial number is in one of the statuses, and returns it.
func checkDocumentStatus(t *testing.T, r docRun, serial string, statuses ...client.Status) *client.Document {
	t.Helper()
	c, ctx := newAPIClient(t, r.url, r.key), t.Context()
	docs, err := c.Documents.List(ctx, &client.DocumentListOptions{Search: serial})
	if err != nil {
		t.Errorf("GET /invoices?search=%s: %v", serial, err)
		return nil
	}
	if len(docs.Items) != 1 {
		t.Errorf("documents %s: %d, want one", serial, len(docs.Items))
		return nil
	}
	full, err := c.Documents.Get(ctx, docs.Items[0].ID)
	if err != nil {
		t.Errorf("GET /invoices/%s: %v", docs.Items[0].ID, err)
		return nil
	}
	if !slices.Contains(statuses, full.Status) {
		t.Errorf("%s is %v, want one of %v", serial, full.Status, statuses)
	}
	return full
}

// TestDocsRules checks, without running anything, the rules the pages keep:
// the README is at most maxReadmeLines lines; every fence says its
// language, and a shell block is ```sh or ```bash; every shell block runs
// or is marked not to run and listed in notRunBlocks; in every shell block
// each curl has --fail-with-body (or fails on purpose), nothing calls
// uuidgen, every variable is set in the page before its use and every file
// sent is written by the page before; every relative link of README.md and
// docs/*.md names a file of the repository, and its #fragment a heading of
// the page it points to.
func TestDocsRules(t *testing.T) {
	t.Parallel()
	pages := loadDocPages(t)
	if len(pages) < 2 || pages[0].path != "README.md" {
		t.Fatalf("pages %v, want README.md and docs/*.md", pages)
	}
	if n := strings.Count(strings.TrimSuffix(pages[0].text, "\n"), "\n") + 1; n > maxReadmeLines {
		t.Errorf("README.md has %d lines, want at most %d: a front door; move the rest to a page under docs/", n, maxReadmeLines)
	}
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(p)))
		return err == nil
	}
	anchors := func(p string) []string {
		raw, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(p)))
		if err != nil {
			return nil
		}
		return headingAnchors(string(raw))
	}
	var marked []string
	for _, p := range pages {
		for _, problem := range slices.Concat(p.problems, shellProblems(p), linkProblems(p, exists, anchors)) {
			t.Error(problem)
		}
		for _, b := range p.blocks {
			if b.shell() && b.norun != "" {
				marked = append(marked, p.path+": "+b.heading)
				if !slices.Contains(notRunBlocks, p.path+": "+b.heading) {
					t.Errorf("%s is marked norun (%s) but not listed in notRunBlocks: a block runs, unless it truly cannot; then list it there", b.where(p.path), b.norun)
				}
			}
		}
	}
	for _, want := range notRunBlocks {
		if !slices.Contains(marked, want) {
			t.Errorf("notRunBlocks lists %q, but no block there is marked norun: take it off the list", want)
		}
	}
	t.Logf("%d pages; %d shell blocks marked not to run: %s", len(pages), len(marked), strings.Join(marked, "; "))
}
