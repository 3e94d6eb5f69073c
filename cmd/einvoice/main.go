// Command einvoice is the e-invoicing service: run `einvoice serve` to start
// it on a SQLite file with the built-in tax-authority sandbox.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/einvoice/einvoice/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := &cli.Main{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	code := m.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
