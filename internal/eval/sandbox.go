package eval

import (
	"net"
	"net/http"
	"time"

	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// SandboxModel serves the sandbox's scripted model on a loopback port (the
// gateway's upstream for `chakshu eval --provider sandbox`). stop shuts it.
func SandboxModel(cfg scriptedmodel.Config) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: scriptedmodel.New(cfg), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}
