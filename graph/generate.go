package graph

// gqlgen runs after ent (ent/generate.go writes schema/ent.graphqls; `go generate ./...`
// visits ent before graph).
//go:generate sh -c "cd .. && go tool gqlgen generate"
