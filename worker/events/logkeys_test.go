package events_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// syncBuffer is a log sink the loop and the intake may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// duplicateKeys lists the top-level keys a JSON log line carries more than once.
func duplicateKeys(line string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	seen := map[string]bool{}
	var dups []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := fmt.Sprint(tok)
		if seen[k] {
			dups = append(dups, k)
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
	}
	return dups, nil
}

// Every line the events loop writes carries each key once: log pipelines
// that reject or collapse duplicate keys (Loki, Elasticsearch) would lose
// one. "installation updated" carried "action" twice (issue 23).
func TestLogLinesHaveNoDuplicateKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		var out syncBuffer
		e := newEnv(t, db, envOpts{log: &out})
		body := fmt.Sprintf(`{"action":"suspend","installation":{"id":%d,"account":{"login":"acme","type":"Organization"}},"sender":{"login":"acme-admin","type":"User"}}`, e.instID)
		e.deliver("installation", "inst-suspend", []byte(body))
		e.drain()
		log := out.String()
		if !strings.Contains(log, `"msg":"installation updated"`) {
			t.Fatalf("no installation updated line in the log:\n%s", log)
		}
		for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
			dups, err := duplicateKeys(line)
			if err != nil {
				t.Fatalf("log line is not JSON: %v\n%s", err, line)
			}
			if len(dups) > 0 {
				t.Errorf("log line repeats %v: %s", dups, line)
			}
		}
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, `"delivery_id":"inst-suspend"`) && strings.Contains(line, `"msg":"installation updated"`) && !strings.Contains(line, `"action":"suspend"`) {
				t.Errorf("the installation line lost its action: %s", line)
			}
		}
	})
}
