package ratelimit

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestMemoryWindow(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(3, time.Minute)
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		at        time.Duration
		allowed   bool
		remaining int
		reset     time.Duration
	}{
		{10 * time.Second, true, 2, 70 * time.Second}, // opens the window
		{20 * time.Second, true, 1, 70 * time.Second},
		{30 * time.Second, true, 0, 70 * time.Second},
		{69 * time.Second, false, 0, 70 * time.Second},
		{70 * time.Second, true, 2, 130 * time.Second}, // the next request opens a new window
	} {
		d, err := m.Allow(ctx, "k", t0.Add(c.at))
		if err != nil || d.Allowed != c.allowed || d.Remaining != c.remaining || !d.Reset.Equal(t0.Add(c.reset)) || d.Limit != 3 {
			t.Errorf("request %d at +%v = %+v, %v", i+1, c.at, d, err)
		}
	}
	if d, _ := m.Allow(ctx, "other", t0.Add(75*time.Second)); !d.Allowed || d.Remaining != 2 {
		t.Errorf("another key = %+v", d)
	}
	// Closed windows are swept: memory follows the active keys.
	m.Allow(ctx, "late", t0.Add(10*time.Minute))
	if n := len(m.windows); n != 1 {
		t.Errorf("%d windows kept after sweep, want 1", n)
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory(50, time.Minute)
	now := time.Now()
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if d, _ := m.Allow(context.Background(), "k", now); d.Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 50 {
		t.Errorf("%d allowed, want exactly 50", allowed)
	}
}
