package pdf

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"testing"
)

// TestConcurrentRenders renders from several goroutines at once, Latin and
// Han documents mixed, while the fonts are first loaded: run it with -race.
func TestConcurrentRenders(t *testing.T) {
	var wg sync.WaitGroup
	outputs := make([][]byte, 8)
	for i := range outputs {
		wg.Go(func() {
			in := sampleInput(3, i%2 == 0)
			if i%3 == 0 {
				in.Customer.Name = "Syarikat Maju Jaya Berhad"
			}
			var buf bytes.Buffer
			if err := Render(&buf, in); err != nil {
				t.Error(err)
			}
			outputs[i] = buf.Bytes()
		})
	}
	wg.Wait()
	// Rendering is deterministic: equal inputs give equal files.
	if !bytes.Equal(outputs[1], outputs[5]) {
		t.Error("two renders of the same input differ")
	}
}

// TestHeapStaysFlat renders 2,000 documents after a warm-up and checks that
// the live heap does not grow: nothing is kept per document (the fonts are
// parsed once). It takes some seconds, so -short and -race skip it.
func TestHeapStaysFlat(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow: 2,000 renders (skipped with -short and -race)")
	}
	inputs := []Input{sampleInput(5, true), sampleInput(5, false)}
	renderN := func(n int) {
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := range n / 2 {
					if err := Render(io.Discard, inputs[(i+w)%2]); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	renderN(100) // warm-up: fonts parsed, pools filled
	before := heap()
	renderN(2000)
	after := heap()
	t.Logf("live heap: %d KiB before, %d KiB after 2,000 renders", before/1024, after/1024)
	const slack = 4 << 20
	if after > before+slack {
		t.Errorf("live heap grew from %d to %d bytes over 2,000 renders", before, after)
	}
}
