package client_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// goBlock is the Go program of docs/go-client.md, under "The walkthrough
// in Go".
var goBlock = regexp.MustCompile("(?s)## The walkthrough in Go\n.*?```go\n(package main\n.*?)```")

// TestDocsGoClientExample builds the Go program of docs/go-client.md and runs it
// against the service: the page's Go stays true.
func TestDocsGoClientExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	readme, err := os.ReadFile("../docs/go-client.md")
	if err != nil {
		t.Fatal(err)
	}
	m := goBlock.FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/go-client.md has no Go program under ## The walkthrough in Go")
	}
	// Inside the module (a directory go's ./... ignores), so that the
	// program builds against this client.
	dir, err := os.MkdirTemp("..", ".readme-go-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./"+filepath.Base(dir))
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "EINVOICE_URL="+serverURL, "EINVOICE_API_KEY="+apiKey)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Go program of docs/go-client.md failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 3 || lines[0] != "draft 20.00" || !strings.HasPrefix(lines[1], "Valid http") {
		t.Errorf("the Go program of docs/go-client.md printed:\n%s", out)
	}
}
