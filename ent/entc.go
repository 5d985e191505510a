//go:build ignore

package main

import (
	"log"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithWhereInputs(true),
		entgql.WithSchemaPath("../schema/ent.graphqls"),
		entgql.WithConfigPath("../gqlgen.yml"),
	)
	if err != nil {
		log.Fatalf("creating entgql extension: %v", err)
	}
	opts := []entc.Option{entc.Extensions(ex)}
	cfg := &gen.Config{Features: []gen.Feature{gen.FeatureVersionedMigration, gen.FeatureLock, gen.FeatureExecQuery, gen.FeatureUpsert, gen.FeatureModifier, gen.FeatureGlobalID}}
	if err := entc.Generate("./schema", cfg, opts...); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}
