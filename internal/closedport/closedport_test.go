//go:build unix

package closedport

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// The address refuses connections, and nobody can listen on it while the
// test holds it.
func TestAddrRefusesAndIsHeld(t *testing.T) {
	addr := Addr(t)
	_, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
	if ln, err := net.Listen("tcp", addr); err == nil { // Go's listeners set SO_REUSEADDR
		ln.Close()
		t.Fatalf("another listener bound %s while it was held", addr)
	}
}

// Once the test is done the port is free again.
func TestAddrIsReleasedAtCleanup(t *testing.T) {
	var addr string
	t.Run("holder", func(t *testing.T) { addr = Addr(t) })
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("after the holder ended: %v", err)
	}
	ln.Close()
}
