//go:build unix

// Package closedport gives tests an address that refuses connections.
//
// A port a test opened and closed again is free for anyone: under
// `go test ./...` another package's process may bind it, or a connection may
// take it as its local port, before the test is done with it, and the test then
// talks to a stranger (a CI run once had a runner's calls answered 404 by
// one). A TCP socket bound to the port without listening holds it instead. It
// has no SO_REUSEADDR, so no listener can bind the port beside it, and Linux
// does not pick it as a connection's local port. A connection to it is refused,
// as to a port nobody holds.
package closedport

import (
	"fmt"
	"syscall"
	"testing"
)

// Addr is "127.0.0.1:port" of such a socket, held until the test ends.
func Addr(t testing.TB) string {
	t.Helper()
	syscall.ForkLock.RLock() // no child process inherits it between socket and CloseOnExec
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatalf("closedport: socket: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("closedport: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("closedport: getsockname: %v", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok || in4.Port == 0 {
		t.Fatalf("closedport: bound to %v", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in4.Port)
}
