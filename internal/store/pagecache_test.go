package store_test

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Every SQLite connection's page cache fits in what the embedded SQLite's
// allocator keeps when it is freed (4 MB, modernc.org/memory's hotBytes):
// a connection empties its whole cache when it begins a transaction after
// another connection wrote, and past that window every freed page costs a
// madvise call under the process-wide allocator lock, which stalled the
// webhook intake for up to 290 ms after each prune commit with 32 MB caches
// (store.SQLiteDSN). The database file is read through mmap instead, mapped
// far enough to cover a million runs.
func TestSQLitePageCacheFitsTheAllocatorsKeptWindow(t *testing.T) {
	const kept = 4 << 20
	const mapped = 1 << 30
	db := storetest.Open(t, "sqlite")
	ctx := context.Background()
	// Hold several connections at once so that each is a different one.
	for i := range 4 {
		conn, err := db.SQL.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var cache, mmap int64
		if err := conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap); err != nil {
			t.Fatal(err)
		}
		// A negative cache_size is in KiB, a positive one in pages.
		bytes := -cache * 1024
		if cache > 0 {
			var page int64
			if err := conn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&page); err != nil {
				t.Fatal(err)
			}
			bytes = cache * page
		}
		if bytes > kept {
			t.Errorf("connection %d: page cache %d KB, over the %d KB the allocator keeps when a cache is emptied", i, bytes>>10, kept>>10)
		}
		if mmap < mapped {
			t.Errorf("connection %d: mmap_size %d MB, under the %d MB that maps a million runs", i, mmap>>20, mapped>>20)
		}
	}
}
