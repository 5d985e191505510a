package ghsim

import "sync"

// inflight counts asynchronous webhook batches still being delivered. Unlike
// a sync.WaitGroup it may be waited on while new batches start (a test
// waiting for deliveries while the simulated runner completes a run).
type inflight struct {
	mu   sync.Mutex
	n    int
	zero *sync.Cond
}

func (f *inflight) add() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.n--
	if f.n == 0 && f.zero != nil {
		f.zero.Broadcast()
	}
	f.mu.Unlock()
}

// wait blocks until no batch is being delivered.
func (f *inflight) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.zero == nil {
		f.zero = sync.NewCond(&f.mu)
	}
	for f.n > 0 {
		f.zero.Wait()
	}
}
