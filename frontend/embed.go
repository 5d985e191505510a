// Package frontend holds the portal's production build (dist/, made by
// `make build`) embedded into the chakshu binary. On a clean checkout dist/
// holds only .keep, so the Go build works without Node; the portal handler
// then shows a "portal not built" page.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist returns the build output rooted at dist/ (index.html, assets/…).
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		// fs.Sub only fails on an invalid path; "dist" is valid.
		panic(err)
	}
	return sub
}
