package graph

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestSetConnectorCredentialHosts: an http credential is stored with the
// hosts it may be sent to (issue 19 item 5); without them, or with a host
// that is not an exact name, the mutation is refused.
func TestSetConnectorCredentialHosts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		c := e.login("carol")
		const m = `mutation($i: ID!, $h: [String!]) { setConnectorCredential(input: {installationID: $i, connector: "http", name: "jira", secret: "s3cret", hosts: $h}) { name hosts } }`
		for _, h := range []any{nil, []string{}, []string{"*.example.com"}, []string{"https://jira.example.com/"}} {
			if r := c.do(m, map[string]any{"i": e.inst.ID, "h": h}); r.code() != "INVALID" || !strings.Contains(r.raw, "host") {
				t.Errorf("hosts %v: %s %s", h, r.code(), r.raw)
			}
		}
		r := c.do(m, map[string]any{"i": e.inst.ID, "h": []string{"Jira.Example.com", "jira.example.com:8443"}})
		if r.code() != "OK" || !strings.Contains(r.raw, `"hosts":["jira.example.com","jira.example.com:8443"]`) {
			t.Fatalf("valid hosts: %s %s", r.code(), r.raw)
		}
	})
}
