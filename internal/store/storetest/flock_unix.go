package storetest

import (
	"os"
	"syscall"
)

func flock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_EX) } //nolint:errcheck
