// Command specgen extracts, from GitHub's published descriptions installed by
// npm under internal/ghsim/spec/node_modules, the parts the simulator is
// validated against: the OpenAPI operations it serves (with every component
// they reference), GitHub's GraphQL schema and the webhook JSON schemas. Run
// by `make generate` through internal/ghsim/generate.go.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
)

func main() {
	if err := run("spec"); err != nil {
		log.Fatal(err)
	}
}

func run(dir string) error {
	mods := filepath.Join(dir, "node_modules", "@octokit")
	if err := openAPISubset(filepath.Join(mods, "openapi", "generated", "api.github.com.json"), filepath.Join(dir, "openapi-subset.json")); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(mods, "graphql-schema", "schema.graphql"), filepath.Join(dir, "schema.graphql")); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(mods, "webhooks-schemas", "schema.json"), filepath.Join(dir, "webhooks-schema.json")); err != nil {
		return err
	}
	return webhookExamples(filepath.Join(mods, "webhooks-examples", "api.github.com", "index.json"), filepath.Join(dir, "..", "examples", "webhooks-examples.json"))
}

// exampleEvents are the events Chakshu subscribes to (plus ping).
var exampleEvents = map[string]bool{
	"check_run": true, "installation": true, "installation_repositories": true, "issue_comment": true, "ping": true,
	"pull_request": true, "pull_request_review": true, "pull_request_review_comment": true, "pull_request_review_thread": true,
	"push": true, "workflow_run": true,
}

func webhookExamples(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("read %s (run npm ci in internal/ghsim/spec): %w", from, err)
	}
	var list []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("parse %s: %w", from, err)
	}
	out := map[string][]json.RawMessage{}
	for _, e := range list {
		if exampleEvents[e.Name] {
			out[e.Name] = e.Examples
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(to, append(b, '\n'), 0o644)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("read %s (run npm ci in internal/ghsim/spec): %w", from, err)
	}
	return os.WriteFile(to, b, 0o644)
}

func openAPISubset(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("read %s (run npm ci in internal/ghsim/spec): %w", from, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("parse %s: %w", from, err)
	}
	paths := doc["paths"].(map[string]any)
	outPaths := map[string]any{}
	for _, rt := range ghsim.Routes() {
		method, path, _ := strings.Cut(rt, " ")
		item, ok := paths[path].(map[string]any)
		if !ok {
			return fmt.Errorf("GitHub's description has no path %s", path)
		}
		op, ok := item[strings.ToLower(method)]
		if !ok {
			return fmt.Errorf("GitHub's description has no operation %s", rt)
		}
		out, _ := outPaths[path].(map[string]any)
		if out == nil {
			out = map[string]any{}
			if ps, ok := item["parameters"]; ok {
				out["parameters"] = ps
			}
			outPaths[path] = out
		}
		out[strings.ToLower(method)] = op
	}
	comps := doc["components"].(map[string]any)
	outComps := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "examples")
			delete(x, "example")
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/") {
				parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
				kind, name := parts[0], parts[1]
				m, _ := outComps[kind].(map[string]any)
				if m == nil {
					m = map[string]any{}
					outComps[kind] = m
				}
				if _, done := m[name]; !done {
					def := comps[kind].(map[string]any)[name]
					m[name] = def
					walk(def)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(outPaths)
	sub := map[string]any{
		"openapi": doc["openapi"], "info": doc["info"], "paths": outPaths, "components": outComps,
		"servers": []any{map[string]any{"url": "/api/v3"}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(sub); err != nil {
		return err
	}
	return os.WriteFile(to, buf.Bytes(), 0o644)
}
