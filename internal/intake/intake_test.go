package intake_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// On PostgreSQL with lz4 (14 and later, built with it), Migrate sets the
// webhook payload column to lz4; a large payload stored after it, and again
// after a second Migrate (which must change nothing), reads back intact.
func TestWebhookPayloadCompression(t *testing.T) {
	db := storetest.Open(t, "postgres")
	ctx := context.Background()
	var lz4 bool
	if err := db.SQL.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil { // storetest's template was migrated once; again is a no-op
		t.Fatal(err)
	}
	var method string
	if err := db.SQL.QueryRowContext(ctx, `SELECT attcompression::text FROM pg_attribute
		WHERE attrelid = 'webhook_events'::regclass AND attname = 'payload'`).Scan(&method); err != nil {
		t.Fatal(err)
	}
	if lz4 && method != "l" {
		t.Fatalf("payload compression %q, want l (lz4)", method)
	}
	payload := []byte(`{"x":"` + strings.Repeat("compressible ", 2000) + `"}`)
	e := db.WebhookEvent.Create().SetDeliveryID("d1").SetEvent("push").SetPayload(payload).SaveX(ctx)
	if got := db.WebhookEvent.GetX(ctx, e.ID).Payload; !bytes.Equal(got, payload) {
		t.Fatalf("payload read back %d bytes, want %d", len(got), len(payload))
	}
	if lz4 {
		var used string
		if err := db.SQL.QueryRowContext(ctx, `SELECT pg_column_compression(payload) FROM webhook_events WHERE id = $1`, e.ID).Scan(&used); err != nil {
			t.Fatal(err)
		}
		if used != "lz4" {
			t.Fatalf("stored with %q, want lz4", used)
		}
	}
}
