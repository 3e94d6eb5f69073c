package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// cluster is what one engine's run starts: the authority (`einvoice
// sandbox`), the witness in front of it, and the service's replicas, with
// their databases and logs in a working directory.
type cluster struct {
	cfg      config
	engine   string
	work     string
	sandbox  *proc
	bin      string // the einvoice binary
	authURL  string // the sandbox, directly
	witness  *witness
	replicas []*proc
	urls     []string // the replicas' base URLs
	dbURL    string
	dropDB   func() error
}

// readyWait bounds a start or restart, to the first 200 on /readyz.
const readyWait = 60 * time.Second

// startCluster starts the sandbox, the witness and the replicas of engine.
func startCluster(ctx context.Context, cfg config, engine, bin string) (c *cluster, err error) {
	c = &cluster{cfg: cfg, engine: engine, bin: bin}
	defer func() {
		if err != nil {
			_ = c.close(true) // keep the logs: they say why
		}
	}()
	if cfg.out != "" {
		c.work = filepath.Join(cfg.out, engine+"-"+time.Now().UTC().Format("20060102T150405"))
		err = os.MkdirAll(c.work, 0o755)
	} else {
		c.work, err = os.MkdirTemp("", "einvoice-chaos-"+engine+"-")
	}
	if err != nil {
		return c, err
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	env := childEnv("EINVOICE_SECRET_KEY=" + base64.StdEncoding.EncodeToString(key))

	addr, err := freePort()
	if err != nil {
		return c, err
	}
	c.sandbox = &proc{name: "sandbox", env: env, logPath: filepath.Join(c.work, "sandbox.log"),
		args: []string{bin, "sandbox", "--addr", addr, "--db", filepath.Join(c.work, "sandbox.db"),
			"--sandbox-delay", cfg.sandboxDelay.String(), "--sandbox-faults", "--sandbox-rate-limits=true", "--log-format", "json"}}
	c.authURL = "http://" + addr
	if err := c.sandbox.start(); err != nil {
		return c, err
	}
	if err := waitHTTP(ctx, c.sandbox, c.authURL+"/sandbox/stats", readyWait); err != nil {
		return c, err
	}
	if c.witness, err = startWitness(c.authURL); err != nil {
		return c, err
	}

	switch engine {
	case "sqlite":
		c.dbURL = filepath.Join(c.work, "einvoice.db")
	default:
		if c.dbURL, c.dropDB, err = freshPostgres(ctx, cfg.pgAdmin); err != nil {
			return c, err
		}
	}
	n := knownEngines[engine]
	if n > 1 {
		// Each replica gets its share of the cores (docs/deployment.md,
		// "PostgreSQL").
		env = append(env, "GOMAXPROCS=1")
	}
	for i := range n {
		addr, err := freePort()
		if err != nil {
			return c, err
		}
		p := &proc{name: fmt.Sprintf("replica %d", i+1), env: env, logPath: filepath.Join(c.work, fmt.Sprintf("serve-%d.log", i+1)),
			args: []string{bin, "serve", "--addr", addr, "--db", c.dbURL, "--authority-url", c.witness.URL,
				"--portal-url", c.witness.URL + "/portal", "--rate-limit", "1000000000", "--submit-wait", cfg.submitWait.String(),
				"--workers", "2", "--log-format", "json"}}
		c.replicas = append(c.replicas, p)
		c.urls = append(c.urls, "http://"+addr)
	}
	for _, p := range c.replicas { // together, as a deployment starts them
		if err := p.start(); err != nil {
			return c, err
		}
	}
	for i, p := range c.replicas {
		if err := waitHTTP(ctx, p, c.urls[i]+"/readyz", readyWait); err != nil {
			return c, err
		}
	}
	return c, nil
}

// childEnv is this process's environment without any EINVOICE_* setting,
// plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "EINVOICE_") && !strings.HasPrefix(kv, "GOMAXPROCS=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

var demoKey = regexp.MustCompile(`eik_[A-Za-z0-9_-]{43}`)

// demoKey returns the API key that one replica printed on its first start.
func (c *cluster) demoKey() (string, error) {
	for _, p := range c.replicas {
		if k := demoKey.FindString(p.output()); k != "" {
			return k, nil
		}
	}
	return "", errors.New("no replica printed a demo key")
}

// restart starts replica i again with the same command line and waits
// until it is ready.
func (c *cluster) restart(ctx context.Context, i int) error {
	if err := c.replicas[i].start(); err != nil {
		return err
	}
	return waitHTTP(ctx, c.replicas[i], c.urls[i]+"/readyz", readyWait)
}

// stopReplicas stops every replica gracefully (SIGTERM).
func (c *cluster) stopReplicas() {
	for _, p := range c.replicas {
		_ = p.stop(40 * time.Second)
	}
}

// close stops everything that runs, drops the PostgreSQL database, and
// removes the working directory unless it is to be kept (-out, or keep).
func (c *cluster) close(keep bool) error {
	for _, p := range c.replicas {
		_ = p.kill()
	}
	if c.sandbox != nil {
		_ = c.sandbox.stop(10 * time.Second)
	}
	if c.witness != nil {
		c.witness.close()
	}
	var err error
	if c.dropDB != nil {
		err = c.dropDB()
	}
	if !keep && c.cfg.out == "" && c.work != "" {
		err = errors.Join(err, os.RemoveAll(c.work))
	}
	return err
}
