//go:build ignore

package main

import (
	"bytes"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
)

// Generated code imports entgql for its run-time types (cursors, page info,
// order direction...). Upstream entgql is also the code generator and would
// bring entc, gqlgen's codegen and golang.org/x/tools into the server, so the
// generated files are pointed at our run-time copy of those types instead.
const (
	upstreamImport = `"entgo.io/contrib/entgql"`
	runtimeImport  = `entgql "github.com/chakshu-dev/chakshu/graph/entgqlrt"`
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithWhereInputs(true),
		entgql.WithSchemaPath("../schema/ent.graphqls"),
		entgql.WithConfigPath("../gqlgen.yml"),
		entgql.WithSchemaHook(describe), // entcdoc.go
	)
	if err != nil {
		log.Fatalf("creating entgql extension: %v", err)
	}
	// entgen: ent/schema's GraphQL annotations are the real entgql ones only
	// under this tag (ent/schema/gql_gen.go); the server gets inert ones.
	opts := []entc.Option{entc.Extensions(ex), entc.BuildTags("entgen")}
	cfg := &gen.Config{Features: []gen.Feature{gen.FeatureVersionedMigration, gen.FeatureLock, gen.FeatureExecQuery, gen.FeatureUpsert, gen.FeatureModifier, gen.FeatureGlobalID}}
	if err := entc.Generate("./schema", cfg, opts...); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
	if err := useRuntimeEntgql("."); err != nil {
		log.Fatalf("pointing generated code at graph/entgqlrt: %v", err)
	}
}

// useRuntimeEntgql rewrites the entgql import of every generated file under
// dir (not the hand-written schema) to the run-time package.
func useRuntimeEntgql(dir string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "schema" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || path == "entc.go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(src, []byte(upstreamImport)) {
			return nil
		}
		out, err := format.Source(bytes.ReplaceAll(src, []byte(upstreamImport), []byte(runtimeImport)))
		if err != nil {
			return err
		}
		return os.WriteFile(path, out, 0o644)
	})
}
