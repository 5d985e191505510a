// Package deps pins the modules the build is planned around while the code that
// imports them is being written. Remove an import once real code uses it.
package deps

import (
	_ "entgo.io/contrib/entgql"
	_ "github.com/99designs/gqlgen/graphql"
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/bradleyfalzon/ghinstallation/v2"
	_ "github.com/coreos/go-oidc/v3/oidc"
	_ "github.com/getkin/kin-openapi/openapi3"
	_ "github.com/go-jose/go-jose/v4"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/go-github/v88/github"
	_ "github.com/gorilla/csrf"
	_ "github.com/gorilla/sessions"
	_ "github.com/gorilla/websocket"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/shurcooL/githubv4"
	_ "github.com/vektah/gqlparser/v2"
	_ "golang.org/x/oauth2"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
