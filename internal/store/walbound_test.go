package store_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A sustained stream of deliveries grows SQLite's WAL (it cannot start over
// while commits keep landing, store.SQLiteDSN); at the first lull the WAL
// starts over and is cut back to journal_size_limit, so a burst does not
// keep its disk space for ever.
func TestIntakeGivesWALSpaceBackAfterABurst(t *testing.T) {
	const limit = 64 << 20 // journal_size_limit in SQLiteDSN
	db := storetest.Open(t, "sqlite")
	ctx := context.Background()
	var file string
	if err := db.SQL.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		t.Fatal(err)
	}
	walSize := func() int64 {
		fi, err := os.Stat(file + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	in := store.NewIntake(db, store.IntakeConfig{})
	defer in.Close()
	payload := `"` + strings.Repeat("x", 2000) + `"`
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				d := &store.Delivery{DeliveryID: fmt.Sprintf("d-%d-%d", w, i), Event: "push", Payload: []byte(payload)}
				if _, err := in.Store(ctx, d); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// The burst, until the WAL is well past the limit.
	deadline := time.Now().Add(60 * time.Second)
	for walSize() < 2*limit && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	burst := walSize()
	if burst < 2*limit {
		t.Fatalf("the burst grew the WAL only to %d MB in a minute; the test needs it past %d MB", burst>>20, 2*limit>>20)
	}
	// The lull: the checkpointer copies everything, the next commit starts
	// the WAL over and cuts the file back.
	var after int64
	for i := 0; i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
		if _, err := in.Store(ctx, &store.Delivery{DeliveryID: fmt.Sprint("lull-", i), Event: "push", Payload: []byte(payload)}); err != nil {
			t.Fatal(err)
		}
		if after = walSize(); after <= limit {
			break
		}
	}
	t.Logf("WAL %d MB after the burst, %d MB after the lull", burst>>20, after>>20)
	if after > limit {
		t.Fatalf("after the burst and a lull the WAL is still %d MB, past journal_size_limit's %d MB", after>>20, limit>>20)
	}
}
