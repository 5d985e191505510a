package redact

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/redact/redacttest"
)

func TestCorpusRedacted(t *testing.T) {
	for name, v := range redacttest.Corpus {
		t.Run(name, func(t *testing.T) {
			if len(redacttest.SecretParts(v)) == 0 {
				t.Fatalf("corpus entry has no secret part to check: %q", v)
			}
			for _, ctx := range []string{"%s", "error: request failed: %s (retrying)", `{"detail":"%s"}`, `line\n%s\nnext`, "TOKEN_%s;", "quoted"} {
				in := strings.Replace(ctx, "%s", v, 1)
				if ctx == "quoted" {
					in = strconv.Quote(v)
				}
				out := String(in)
				for _, p := range redacttest.SecretParts(v) {
					if strings.Contains(out, p) {
						t.Errorf("%q survives in %q", p, out)
					}
				}
			}
		})
	}
}
