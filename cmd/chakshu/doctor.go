package main

import (
	"context"
	"fmt"
	"io"

	"github.com/chakshu-dev/chakshu/internal/doctor"
)

// doctorCmd runs `chakshu doctor`: one line per check, a fix under each
// failure, and a non-zero exit when anything failed.
func doctorCmd(ctx context.Context, _ []string, stdout, _ io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	cs := doctor.Run(ctx, doctor.Config{Config: cfg})
	doctor.Write(stdout, cs)
	if n := doctor.Failed(cs); n > 0 {
		return fmt.Errorf("doctor: %d checks failed", n)
	}
	return nil
}
