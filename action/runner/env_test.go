package runner

import (
	"maps"
	"sync"
)

// Env is an in-memory environment for running the runner in a test: pass
// env.Lookup and env.Unsetenv in Config, and the process environment is
// never touched.
type Env struct {
	mu sync.Mutex
	m  map[string]string
}

// NewEnv returns an environment holding a copy of vars.
func NewEnv(vars map[string]string) *Env { return &Env{m: maps.Clone(vars)} }

// Lookup reads a variable.
func (e *Env) Lookup(k string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.m[k]
	return v, ok
}

// Unsetenv removes a variable.
func (e *Env) Unsetenv(k string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, k)
	return nil
}

// Has returns which of keys are set.
func (e *Env) Has(keys ...string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, k := range keys {
		if _, ok := e.m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
