package audit_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/audit"
)

// The schema's comment on AuditEntry.action (GraphQL shows it) lists exactly
// the actions recorded.
func TestSchemaCommentListsEveryAction(t *testing.T) {
	b, err := os.ReadFile("../../ent/schema/auditentry.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Comment\("what was done: ([^"]*)"\)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no comment on AuditEntry.action")
	}
	listed := strings.Split(string(m[1]), ", ")
	if !slices.Equal(listed, audit.Actions) {
		t.Fatalf("the schema comment lists %q, the actions are %q", listed, audit.Actions)
	}
}

// The portal's Audit page offers every action in its filter.
func TestAuditPageFiltersEveryAction(t *testing.T) {
	b, err := os.ReadFile("../../frontend/src/pages/AuditPage.tsx")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)AUDIT_ACTIONS = \[(.*?)\]`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no AUDIT_ACTIONS in AuditPage.tsx")
	}
	var listed []string
	for _, q := range regexp.MustCompile(`'([^']+)'`).FindAllSubmatch(m[1], -1) {
		listed = append(listed, string(q[1]))
	}
	if !slices.Equal(listed, audit.Actions) {
		t.Fatalf("the Audit page filters %q, the actions are %q", listed, audit.Actions)
	}
}
