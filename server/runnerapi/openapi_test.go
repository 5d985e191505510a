package runnerapi

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// The OpenAPI description is valid and names every route the API serves.
func TestOpenAPIDescribesRoutes(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	for _, p := range []string{runnerproto.PathJob, runnerproto.PathResult, runnerproto.PathTool, runnerproto.PathModel + "/v1/messages", runnerproto.PathRunner, runnerproto.PathRunnerSHA256} {
		rel := strings.TrimPrefix(p, "/api/runner/v1")
		if doc.Paths.Find(rel) == nil {
			t.Errorf("openapi.yaml lacks %s", rel)
		}
	}
	api := &API{}
	if n := len(api.Routes()); n != 6 {
		t.Fatalf("%d routes; update openapi.yaml and this test", n)
	}
}
