package intake_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// walBurst opens a SQLite store with an intake and grows its WAL past twice
// intake.WALKeep with a burst of deliveries from eight senders: under a
// sustained stream of commits the WAL seldom starts over (store.SQLiteDSN).
// It returns the store, the intake and a function that reads the WAL file's
// size.
func walBurst(t *testing.T, cfg intake.IntakeConfig) (*store.DB, *intake.Intake, func() int64) {
	t.Helper()
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
	in := intake.NewIntake(db, cfg)
	t.Cleanup(in.Close)
	payload := []byte(`"` + strings.Repeat("x", 2000) + `"`)
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
				d := &intake.Delivery{DeliveryID: fmt.Sprintf("d-%d-%d", w, i), Event: "push", Payload: payload}
				if _, err := in.Store(ctx, d); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for walSize() < 2*intake.WALKeep && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if got := walSize(); got < 2*intake.WALKeep {
		t.Fatalf("the burst grew the WAL only to %d MB in a minute; the test needs it past %d MB", got>>20, 2*intake.WALKeep>>20)
	}
	return db, in, walSize
}

// walCheckpoint runs a PASSIVE checkpoint and returns what SQLite reports:
// whether it was blocked, the frames in the WAL and the frames copied.
func walCheckpoint(t *testing.T, db *store.DB) (busy, frames, copied int) {
	t.Helper()
	if err := db.SQL.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		t.Fatal(err)
	}
	return busy, frames, copied
}

// Once the intake has been quiet for a while, the checkpointer gives back
// the disk space a burst grew the WAL to.
func TestIntakeGivesWALSpaceBackAfterABurst(t *testing.T) {
	_, in, walSize := walBurst(t, intake.IntakeConfig{WALQuiet: 300 * time.Millisecond})
	burst := walSize()
	deadline := time.Now().Add(30 * time.Second)
	for walSize() > intake.WALKeep && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	after := walSize()
	t.Logf("WAL %d MB after the burst, %d MB after a quiet spell", burst>>20, after>>20)
	if after > intake.WALKeep {
		t.Fatalf("after the burst and a quiet spell the WAL is still %d MB, past %d MB", after>>20, intake.WALKeep>>20)
	}
	if stored, err := in.Store(context.Background(), &intake.Delivery{DeliveryID: "after", Event: "push", Payload: []byte(`{}`)}); err != nil || !stored {
		t.Fatalf("a delivery after the trim: stored %v, %v", stored, err)
	}
}

// A commit never cuts the WAL back: when the WAL starts over in the middle
// of a stream, the commit that starts it writes from the file's start in
// place. With journal_size_limit set, that commit truncated gigabytes under
// the write lock and every delivery behind it waited hundreds of
// milliseconds (checkpointer.trim).
func TestIntakeCommitsNeverCutTheWAL(t *testing.T) {
	db, in, walSize := walBurst(t, intake.IntakeConfig{WALQuiet: time.Hour})
	ctx := context.Background()
	burst := walSize()
	var pageSize int64
	if err := db.SQL.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	// A commit starts the WAL over only if, when it begins, the WAL is all
	// copied and no reader holds a snapshot in it; the intake's own
	// checkpointer copying the commit before, or any reader, makes it append
	// instead (CI saw 20 commits in a row append; under -race the first try
	// right after the burst appends in most runs). So the scene is set again
	// until a commit has started the WAL over; none may cut it meanwhile.
	const tries = 10
	for try := range tries {
		// Let a checkpoint copy everything, as one does when it catches up
		// between two commits of a stream.
		deadline := time.Now().Add(30 * time.Second)
		for {
			busy, frames, copied := walCheckpoint(t, db)
			if busy == 0 && frames == copied {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the checkpoint did not catch up: %d of %d frames copied", copied, frames)
			}
			time.Sleep(10 * time.Millisecond)
		}
		for i := range 20 {
			if _, err := in.Store(ctx, &intake.Delivery{DeliveryID: fmt.Sprint("next-", try, "-", i), Event: "push", Payload: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if got := walSize(); got < burst {
			t.Fatalf("a commit cut the WAL back from %d MB to %d MB", burst>>20, got>>20)
		}
		_, frames, _ := walCheckpoint(t, db)
		used := int64(frames) * (pageSize + 24)
		if used < burst/2 {
			return // started over, in place
		}
		t.Logf("try %d: the WAL did not start over (%d frames, %d MB, in a file of %d MB)", try+1, frames, used>>20, burst>>20)
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the WAL did not start over in %d tries", tries)
}

// A reader still reading the WAL when the intake falls quiet (a backup, a
// long report) makes the trim give up at once rather than hold the write
// lock until busy_timeout, which would keep every delivery waiting; the trim
// tries again after the next quiet spell.
func TestWALTrimDoesNotWaitForReaders(t *testing.T) {
	const quiet = 300 * time.Millisecond
	db, in, walSize := walBurst(t, intake.IntakeConfig{WALQuiet: quiet})
	ctx := context.Background()
	if _, err := in.Store(ctx, &intake.Delivery{DeliveryID: "last", Event: "push", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	// Frames the intake's checkpointer has not been told of, then a reader
	// whose snapshot takes them from the WAL.
	for _, q := range []string{"CREATE TABLE scratch (x)", "INSERT INTO scratch VALUES (1)"} {
		if _, err := db.ExecWrite(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := db.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, "SELECT COUNT(*) FROM scratch").Scan(&n); err != nil {
		t.Fatal(err)
	}
	// The trim starts a quiet spell after the last delivery; a delivery
	// arriving while it runs must not wait for the reader.
	time.Sleep(quiet + 300*time.Millisecond)
	start := time.Now()
	if _, err := in.Store(ctx, &intake.Delivery{DeliveryID: "during", Event: "push", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("a delivery waited %v behind the WAL trim, which waited for a reader", took)
	}
	if got := walSize(); got <= intake.WALKeep {
		t.Fatalf("the WAL was cut to %d MB while a reader read it", got>>20)
	}
	if _, err := reader.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for walSize() > intake.WALKeep && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := walSize(); got > intake.WALKeep {
		t.Fatalf("once the reader was done the WAL stayed at %d MB", got>>20)
	}
}
