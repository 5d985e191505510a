package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkIdleRSS starts the real binary as `chakshu all` in sandbox mode and
// reads its resident memory once idle. DESIGN §11: ≤ 80 MB. The sandbox figure
// includes the in-process GitHub simulator and scripted model that a
// production `chakshu all` does not carry.
func BenchmarkIdleRSS(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "chakshu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "all")
	cmd.Env = append(os.Environ(), "CHAKSHU_ADDR="+addr, "CHAKSHU_DATA_DIR="+b.TempDir())
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }() //nolint:errcheck
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("no /readyz")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(15 * time.Second) // settle: installation, reviewer sync, seeded history
	kb := vmRSS(b, cmd.Process.Pid)
	b.ReportMetric(float64(kb)/1024, "idle-RSS-MB")
	fmt.Printf("idle RSS of chakshu all (sandbox mode, simulator included): %.1f MB; budget ≤ 80 MB\n", float64(kb)/1024)
}

func vmRSS(b *testing.B, pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
