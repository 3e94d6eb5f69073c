// Command ceiling gives the machine's ceilings that the service is
// measured against (docs/performance.md).
//
// By default it is the trivial JSON GET server against which
// bench/reads.sh measures the service's reads: the same Go net/http server
// and encoding/json, nothing else (no routing, authentication, database or
// logging), so what a read of the service reaches as a fraction of it is
// what the service's own work costs on the machine of the run.
//
// With -fsync-dir (SQLite) or -fsync-pg (PostgreSQL) it measures instead
// the one-transaction durable-write ceiling of invoice creation (fsync.go)
// and prints it.
//
//	go run ./bench/ceiling -addr 127.0.0.1:18090
//	go run ./bench/ceiling -fsync-dir /tmp/x -fsync-time 5s
//	go run ./bench/ceiling -fsync-pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"
)

// buyer is a small answer of about the size of GET /buyers/{id}'s.
type buyer struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	TIN     string `json:"tin"`
	IDType  string `json:"id_type"`
	IDValue string `json:"id_value"`
	Email   string `json:"email"`
	Phone   string `json:"phone"`
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "loopback address to listen on")
	fsyncDir := flag.String("fsync-dir", "", "measure SQLite's one-transaction write ceiling in this directory, then exit")
	fsyncPG := flag.String("fsync-pg", "", "measure PostgreSQL's one-transaction write ceiling on this database URL, then exit")
	seconds := flag.Duration("fsync-time", 5*time.Second, "how long a write ceiling is measured")
	flag.Parse()
	if *fsyncDir != "" || *fsyncPG != "" {
		driver, dsn := "sqlite", sqliteCeilingDSN(*fsyncDir)
		if *fsyncPG != "" {
			driver, dsn = "pgx", *fsyncPG
		}
		rate, err := fsyncCeiling(context.Background(), driver, dsn, *seconds)
		if err != nil {
			log.Fatalf("ceiling: %s: %v", driver, err)
		}
		fmt.Printf("%s one-transaction write ceiling: %.0f/s\n", driver, rate)
		return
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("ceiling: -addr must be a loopback address, got %q", *addr)
	}
	b := buyer{ID: "0b6f3d4e-8c1a-4f43-9a55-2f6d7e8a9b10", Name: "Syarikat Hebat Sdn Bhd", TIN: "C20880050010",
		IDType: "BRN", IDValue: "202001234567", Email: "accounts@hebat.example", Phone: "+60123456789",
		City: "Kuala Lumpur", State: "14", Country: "MYS"}
	http.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Success bool  `json:"success"`
			Data    buyer `json:"data"`
		}{true, b})
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
