package main

import (
	"context"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Ways a document is submitted.
const (
	modeSingle = "single" // one client, POST /documents/{id}/submit
	modePair   = "pair"   // two clients at once, through two replicas when there are two
	modeBulk   = "bulk"   // POST /documents/submit-bulk of up to 100 ids
)

// task is a submission to make: its way and its documents.
type task struct {
	mode string
	docs []*doc
}

// scheduled is a task and when, from the start of the chaos, it is first
// made.
type scheduled struct {
	at time.Duration
	task
}

// plan splits the documents, shuffled, into thirds: submitted singly, by
// pairs of clients at once, and in bulks of 1 to 100; each task is first
// made at a random moment within the first four fifths of window.
func plan(docs []*doc, rng *rand.Rand, window time.Duration) []scheduled {
	shuffled := append([]*doc(nil), docs...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	third := len(shuffled) / 3
	var tasks []task
	for _, d := range shuffled[:third] {
		tasks = append(tasks, task{modeSingle, []*doc{d}})
	}
	for _, d := range shuffled[third : 2*third] {
		tasks = append(tasks, task{modePair, []*doc{d}})
	}
	for rest := shuffled[2*third:]; len(rest) > 0; {
		n := min(1+rng.IntN(100), len(rest))
		tasks = append(tasks, task{modeBulk, rest[:n]})
		rest = rest[n:]
	}
	span := int64(window) * 4 / 5
	out := make([]scheduled, len(tasks))
	for i, t := range tasks {
		out[i] = scheduled{at: time.Duration(rng.Int64N(span + 1)), task: t}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// workload is the clients: they make the planned tasks, and make again,
// after a pause, every task whose documents the service has not yet said
// are submitted (no answer, 5xx, 202), until stopped.
type workload struct {
	api     *api
	clients []*apiClient
	tally   *tally
	queue   chan task
	stopped atomic.Bool
	wg      sync.WaitGroup
}

// startWorkload starts n clients and the dispatcher of the plan.
func startWorkload(ctx context.Context, a *api, n int, tasks []scheduled, seed uint64) *workload {
	w := &workload{api: a, tally: newTally(), queue: make(chan task, len(tasks)+1)}
	for range n {
		w.clients = append(w.clients, a.newClient())
	}
	start := time.Now()
	w.wg.Go(func() {
		for _, s := range tasks {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(start.Add(s.at))):
			}
			w.enqueue(s.task)
		}
	})
	for i := range w.clients {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		w.wg.Go(func() { w.client(ctx, i, rng) })
	}
	return w
}

// stop stops the clients after the requests under way, and waits.
func (w *workload) stop(cancel context.CancelFunc) {
	w.stopped.Store(true)
	cancel()
	w.wg.Wait()
}

// enqueue queues a task unless the clients have stopped.
func (w *workload) enqueue(t task) {
	if w.stopped.Load() {
		return
	}
	select {
	case w.queue <- t:
	default:
		// Never expected (each planned task has at most one successor
		// queued at a time), but never block a timer either.
		go func() { w.queue <- t }()
	}
}

// client i makes tasks from the queue until ctx is done.
func (w *workload) client(ctx context.Context, i int, rng *rand.Rand) {
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-w.queue:
			var left []*doc
			switch t.mode {
			case modeSingle:
				left = w.single(i, t.docs[0])
			case modePair:
				left = w.pair(i, t.docs[0])
			case modeBulk:
				left = w.bulk(i, t.docs)
			}
			if len(left) > 0 {
				next := task{t.mode, left}
				time.AfterFunc(500*time.Millisecond+time.Duration(rng.Int64N(int64(2500*time.Millisecond))), func() { w.enqueue(next) })
			}
		}
	}
}

// apply records a judged answer for d and reports whether d is to be
// submitted again.
func (w *workload) apply(mode string, d *doc, j judgement) bool {
	w.tally.note(mode, d, j)
	if j.uuid != "" {
		d.tell(j.uuid)
	}
	if j.out != retry {
		d.acked.Store(true)
	}
	if j.out == final {
		d.final.Store(true)
	}
	return !d.final.Load()
}

// submitOne submits d through client c at base. The requests do not
// follow the chaos's context: an answer under way when the chaos stops is
// still judged.
func (w *workload) submitOne(c *apiClient, base string, d *doc) judgement {
	w.tally.request()
	r, err := c.do(context.Background(), base, "POST", "/api/v1/documents/"+d.id+"/submit", nil)
	return judgeSingle(r, err)
}

// single submits d through client i.
func (w *workload) single(i int, d *doc) []*doc {
	if w.apply(modeSingle, d, w.submitOne(w.clients[i], w.api.base(), d)) {
		return []*doc{d}
	}
	return nil
}

// pair submits d through clients i and i+1 at the same moment, to two
// replicas when there are two.
func (w *workload) pair(i int, d *doc) []*doc {
	bases := w.api.pairBases()
	cs := []*apiClient{w.clients[i], w.clients[(i+1)%len(w.clients)]}
	var js [2]judgement
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for k := range 2 {
		wg.Go(func() {
			<-gate
			js[k] = w.submitOne(cs[k], bases[k], d)
		})
	}
	close(gate)
	wg.Wait()
	again := false
	for _, j := range js {
		again = w.apply(modePair, d, j)
	}
	if again {
		return []*doc{d}
	}
	return nil
}

// bulk submits the documents of docs not yet final in one bulk request
// through client i.
func (w *workload) bulk(i int, docs []*doc) []*doc {
	var ids []string
	byID := map[string]*doc{}
	for _, d := range docs {
		if !d.final.Load() {
			ids = append(ids, d.id)
			byID[d.id] = d
		}
	}
	if len(ids) == 0 {
		return nil
	}
	w.tally.request()
	r, err := w.clients[i].do(context.Background(), w.api.base(), "POST", "/api/v1/documents/submit-bulk", map[string]any{"document_ids": ids})
	var left []*doc
	for id, j := range judgeBulk(r, err, ids) {
		if d := byID[id]; d != nil && w.apply(modeBulk, d, j) {
			left = append(left, d)
		}
	}
	return left
}

// allAcked reports whether the service has answered a submit of every
// document.
func allAcked(docs []*doc) bool {
	for _, d := range docs {
		if !d.acked.Load() {
			return false
		}
	}
	return true
}
