package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create and drop the run's database
)

// freshPostgres creates an empty database on the server of adminURL and
// returns its URL and a function that drops it (even while connections to
// it remain).
func freshPostgres(ctx context.Context, adminURL string) (string, func() error, error) {
	admin, err := sql.Open("pgx", adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("open %s: %w", adminURL, err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "einvoice_chaos_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() error {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		return nil
	}
	return u.String(), drop, nil
}
