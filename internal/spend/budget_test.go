package spend

import (
	"testing"
	"time"
)

func TestPeriods(t *testing.T) {
	cases := []struct {
		period      Period
		now         string
		start, next string
	}{
		{Daily, "2026-12-31T23:59:59Z", "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z"},
		{Daily, "2026-12-02T00:00:00Z", "2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z"},
		{Monthly, "2026-12-31T23:59:59Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"},
		{Monthly, "2027-02-28T12:00:00+05:30", "2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z"},
	}
	for _, tc := range cases {
		now, _ := time.Parse(time.RFC3339, tc.now)
		if got := tc.period.Start(now).Format(time.RFC3339); got != tc.start {
			t.Errorf("%s start of %s = %s, want %s", tc.period, tc.now, got, tc.start)
		}
		if got := tc.period.ResetsAt(now).Format(time.RFC3339); got != tc.next {
			t.Errorf("%s reset after %s = %s, want %s", tc.period, tc.now, got, tc.next)
		}
	}
	if Daily.grain() != "dr" || Monthly.grain() != "mr" {
		t.Fatalf("grains %s %s", Daily.grain(), Monthly.grain())
	}
}
