package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"
)

// BusyIntake stores deliveries "new-0", "new-1", … through in one after
// another, each after the last one's commit and a pause of 100 µs, until
// stop is called, and stop returns how many it stored; a failed store fails
// the test.
func BusyIntake(t testing.TB, in *intake.Intake) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	n := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := in.Store(context.Background(), &intake.Delivery{DeliveryID: fmt.Sprintf("new-%d", i), Event: "ping", Payload: []byte(`{}`)}); err != nil {
				t.Errorf("store delivery %d: %v", i, err)
				return
			}
			n++
			time.Sleep(100 * time.Microsecond)
		}
	}()
	return func() int { cancel(); wg.Wait(); return n }
}
