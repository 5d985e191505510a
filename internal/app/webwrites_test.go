package app

import (
	"reflect"
	"testing"

	"github.com/chakshu-dev/chakshu/graph"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/server/auth"
	"github.com/chakshu-dev/chakshu/server/portal"
	"github.com/chakshu-dev/chakshu/server/runnerapi"
	"github.com/chakshu-dev/chakshu/server/setuppage"
	"github.com/chakshu-dev/chakshu/server/webhook"
)

// The web process never writes to GitHub (DESIGN §1, §8): the port is made
// in workerParts only, and neither what both processes share (deps) nor the
// configuration of any part webRoutes builds can hold one. (graph still
// imports worker/events, issue 20 item 3, so the port's package is linked
// into the web process; nothing there is handed a Port.)
func TestWebProcessHoldsNoWritePort(t *testing.T) {
	writer := reflect.TypeOf((*ghwrite.Port)(nil))
	for _, cfg := range []any{deps{}, runnerapi.Config{}, webhook.Config{}, graph.Config{}, auth.Config{}, portal.Config{}, setuppage.Config{}} {
		typ := reflect.TypeOf(cfg)
		for i := range typ.NumField() {
			ft := typ.Field(i).Type
			if ft == writer || (ft.Kind() == reflect.Interface && writer.Implements(ft) && ft.NumMethod() > 0 && holdsWrite(ft)) {
				t.Errorf("%s.%s (%s) can hold the GitHub write port", typ, typ.Field(i).Name, ft)
			}
		}
	}
}

// holdsWrite reports whether interface ft asks for a method only the write
// port has (so *gh.Apps-shaped interfaces for reads do not count).
func holdsWrite(ft reflect.Type) bool {
	for i := range ft.NumMethod() {
		switch ft.Method(i).Name {
		case "OpenCheck", "StartCheck", "CompleteCheck", "NoteCheck", "CreateReview", "Comment", "Reply",
			"ResolveThread", "RemoveReviewRequest", "Dispatch", "CancelActionsRun":
			return true
		}
	}
	return false
}

// The guard notices a configuration field that could hold the port.
func TestHoldsWriteNoticesAWriter(t *testing.T) {
	type completer interface {
		CompleteCheck(ctx interface{ Done() <-chan struct{} }) error
	}
	if !holdsWrite(reflect.TypeOf((*completer)(nil)).Elem()) {
		t.Fatal("an interface asking for CompleteCheck was not noticed")
	}
	if holdsWrite(reflect.TypeOf((*runnerapi.GitHub)(nil)).Elem()) {
		t.Fatal("the read-only installation interface was taken for a writer")
	}
}
