// Package version holds the version of this build of Chakshu. The server and
// chakshu-action are built with the same value (`make build`,
// deploy/Dockerfile: -ldflags "-X github.com/chakshu-dev/chakshu/internal/version.Version=…"),
// and the runner API refuses a runner of another version.
package version

// Version is set at build time; "dev" for a build without it.
var Version = "dev"
