package ghsim

import (
	"runtime"
	"testing"
	"time"
)

// GitHub's parsed schema is let go once GraphQL has been idle for gqlKeep,
// collected by the next GC, and parsed again on the next request.
func TestGraphQLSchemaReleasedWhenIdle(t *testing.T) {
	first, err := loadGraphQLSchema()
	if err != nil {
		t.Fatal(err)
	}
	if first.Types["Repository"] == nil {
		t.Fatal("no Repository type")
	}
	again, _ := loadGraphQLSchema()
	if again != first {
		t.Fatal("a schema in use was parsed again")
	}
	gqlMu.Lock()
	gqlUsed = time.Now().Add(-2 * gqlKeep) // idle for longer than gqlKeep
	gqlMu.Unlock()
	releaseGraphQLSchema()
	gqlMu.Lock()
	held := gqlSchema != nil
	gqlMu.Unlock()
	if held {
		t.Fatal("schema still held after gqlKeep without a request")
	}
	first, again = nil, nil
	runtime.GC()
	runtime.GC()
	gqlMu.Lock()
	collected := gqlWeak.Value() == nil
	gqlMu.Unlock()
	if !collected {
		t.Fatal("released schema not collected")
	}
	s, err := loadGraphQLSchema()
	if err != nil || s.Types["Repository"] == nil {
		t.Fatalf("reparse: %v", err)
	}
}
