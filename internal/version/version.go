// Package version holds the version of this build of Chakshu. The server and
// chakshu-action are built with the same value (`make build`,
// deploy/Dockerfile: -ldflags "-X github.com/chakshu-dev/chakshu/internal/version.Version=…"),
// and the version comes from the git tag (scripts/version.sh: vMAJOR.MINOR.PATCH,
// or vX.Y.Z-N-gHASH between tags). The runner API hands jobs to a runner of
// any version that speaks a runner protocol it serves (runnerproto).
package version

// Version is set at build time; "dev" for a build without it.
var Version = "dev"
