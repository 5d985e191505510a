package webhook_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The intake benchmarks' load generator runs in a process of its own: this
// test binary again, started with loadGenEnv set, which TestMain turns into
// the generator instead of running tests. GitHub's senders are not in
// Chakshu's process. In the same process the generator's 64 goroutines
// shared the server's Go scheduler, and a delivery's latency took in the
// time its sender's goroutine waited there behind the server's work (the
// writer, SQLite's checkpoints, pruning) to wake at its due time and to read
// its response. In a process of its own it still takes its share of the
// machine's cores, from the operating system's scheduler as a client
// elsewhere on the machine would.
const loadGenEnv = "CHAKSHU_BENCH_LOADGEN"

func TestMain(m *testing.M) {
	if os.Getenv(loadGenEnv) != "" {
		if err := serveLoadGen(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "load generator:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// loadGenSpec is the generator's first line: whom to send what, over how
// many keep-alive connections.
type loadGenSpec struct {
	Intake  benchIntake
	Clients int
}

// loadGenRun asks for one paced run; loadGenResult answers it.
type loadGenRun struct {
	Name     string
	Rate     int
	Duration time.Duration
}

type loadGenResult struct {
	Latencies []time.Duration // sorted, the failed left out
	Failures  int
	Elapsed   time.Duration
}

// serveLoadGen is the generator's side: one spec, then one result a run.
func serveLoadGen(r io.Reader, w io.Writer) error {
	dec, enc := json.NewDecoder(bufio.NewReader(r)), json.NewEncoder(w)
	var spec loadGenSpec
	if err := dec.Decode(&spec); err != nil {
		return err
	}
	conns := make([]*rawConn, spec.Clients)
	for i := range conns {
		conns[i] = &rawConn{in: &spec.Intake}
		if err := conns[i].redial(); err != nil {
			return err
		}
		defer conns[i].close()
	}
	for {
		var run loadGenRun
		if err := dec.Decode(&run); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		res := offer(conns, run.Name, run.Rate, run.Duration)
		if err := enc.Encode(loadGenResult{Latencies: res.lat, Failures: res.failures, Elapsed: res.elapsed}); err != nil {
			return err
		}
	}
}

// loadGen is the benchmark's handle on its generator process.
type loadGen struct {
	b   *testing.B
	enc *json.Encoder
	dec *json.Decoder
}

// startLoadGen starts a generator sending in's deliveries over clients
// connections; it ends with the benchmark.
func startLoadGen(b *testing.B, in *benchIntake, clients int) *loadGen {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), loadGenEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close() // the generator ends at EOF
		if err := cmd.Wait(); err != nil {
			b.Errorf("load generator: %v", err)
		}
	})
	g := &loadGen{b: b, enc: json.NewEncoder(stdin), dec: json.NewDecoder(bufio.NewReader(stdout))}
	if err := g.enc.Encode(loadGenSpec{Intake: *in, Clients: clients}); err != nil {
		b.Fatal(err)
	}
	return g
}

// offer has the generator offer rate deliveries a second for d.
func (g *loadGen) offer(name string, rate int, d time.Duration) result {
	g.b.Helper()
	if err := g.enc.Encode(loadGenRun{Name: name, Rate: rate, Duration: d}); err != nil {
		g.b.Fatal(err)
	}
	var res loadGenResult
	if err := g.dec.Decode(&res); err != nil {
		g.b.Fatalf("load generator: %v", err)
	}
	return result{lat: res.Latencies, failures: res.Failures, elapsed: res.Elapsed}
}
