package entgqlrt

import (
	"bytes"
	"database/sql/driver"
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type status string // stands for ent's generated enum types

type idValuer struct{ n int64 }

func (v idValuer) Value() (driver.Value, error) { return v.n, nil }

func marshal[T any](c Cursor[T]) string {
	var b bytes.Buffer
	c.MarshalGQL(&b)
	s, err := strconv.Unquote(b.String())
	if err != nil {
		panic(err)
	}
	return s
}

func TestCursorRoundTrip(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+1800)
	at := time.Date(2026, 11, 30, 14, 27, 49, 123456789, time.UTC)
	ptr := at.In(kolkata)
	for _, tc := range []struct {
		name      string
		value     any
		want      any // nil: no value
		wantFloat bool
	}{
		{name: "no value", value: nil, want: nil},
		{name: "nil pointer", value: (*time.Time)(nil), want: nil},
		{name: "int", value: 42, want: int64(42)},
		{name: "int64 min", value: int64(math.MinInt64), want: int64(math.MinInt64)},
		{name: "uint64 max", value: uint64(math.MaxUint64), want: uint64(math.MaxUint64)},
		{name: "float", value: 0.1 + 0.2, want: 0.1 + 0.2},
		{name: "float tiny", value: 5e-324, want: 5e-324},
		{name: "float whole", value: float64(3), want: float64(3)},
		{name: "string", value: `a "quoted" ✓ name/with+slash`, want: `a "quoted" ✓ name/with+slash`},
		{name: "empty string", value: "", want: ""},
		{name: "enum", value: status("in_progress"), want: "in_progress"},
		{name: "bool", value: true, want: true},
		{name: "bytes", value: []byte{0, 1, 254, 255}, want: []byte{0, 1, 254, 255}},
		{name: "valuer", value: idValuer{7}, want: int64(7)},
		{name: "time utc", value: at, want: at},
		{name: "time offset", value: at.In(kolkata), want: at.In(kolkata)},
		{name: "time pointer", value: &ptr, want: ptr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := marshal(Cursor[int]{ID: 9, Value: tc.value})
			var got Cursor[int]
			if err := got.UnmarshalGQL(s); err != nil {
				t.Fatalf("UnmarshalGQL(%q): %v", s, err)
			}
			if got.ID != 9 {
				t.Errorf("ID = %d, want 9", got.ID)
			}
			if wt, ok := tc.want.(time.Time); ok {
				gt, ok := got.Value.(time.Time)
				if !ok || !gt.Equal(wt) || gt.Format(time.RFC3339Nano) != wt.Format(time.RFC3339Nano) {
					t.Errorf("Value = %#v, want %v (same instant and offset)", got.Value, wt)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got.Value); diff != "" {
				t.Errorf("Value (-want +got):\n%s", diff)
			}
			if strings.ContainsAny(s, "+/=") {
				t.Errorf("cursor %q is not unpadded base64url", s)
			}
		})
	}
}

func TestCursorStringID(t *testing.T) {
	s := marshal(Cursor[string]{ID: "node-1", Value: 3.5})
	var got Cursor[string]
	if err := got.UnmarshalGQL(s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Cursor[string]{ID: "node-1", Value: 3.5}, got); diff != "" {
		t.Error(diff)
	}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestCursorRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
	}{
		{"not a string", 42},
		{"empty", ""},
		{"not base64", "!!!"},
		{"padded std base64", base64.StdEncoding.EncodeToString([]byte(`{"i":1}`))},
		{"not json", b64("hello")},
		{"empty object", b64(`{}`)},
		{"null id", b64(`{"i":null}`)},
		{"id of the wrong type", b64(`{"i":"1"}`)},
		{"fractional id", b64(`{"i":1.5}`)},
		{"id out of range", b64(`{"i":1e40}`)},
		{"unknown field", b64(`{"i":1,"x":2}`)},
		{"trailing data", b64(`{"i":1} {"i":2}`)},
		{"trailing bracket", b64(`{"i":1}]`)},
		{"kind without value", b64(`{"i":1,"k":"i"}`)},
		{"value without kind", b64(`{"i":1,"v":"1"}`)},
		{"unknown kind", b64(`{"i":1,"k":"z","v":"1"}`)},
		{"bad int", b64(`{"i":1,"k":"i","v":"1.5"}`)},
		{"bad time", b64(`{"i":1,"k":"t","v":"yesterday"}`)},
		{"bad bool", b64(`{"i":1,"k":"b","v":"maybe"}`)},
		{"value not text", b64(`{"i":1,"k":"i","v":1}`)},
		{"upstream msgpack cursor", "gqFpAaF2tzIwMjYtMTEtMzBUMTQ6Mjc6NDlaCg"},
		{"too long", b64(`{"i":1,"k":"s","v":"` + strings.Repeat("a", maxCursorLen) + `"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Cursor[int]{ID: 5}
			if err := c.UnmarshalGQL(tc.in); err == nil {
				t.Errorf("UnmarshalGQL(%v) = nil error, cursor %+v", tc.in, c)
			} else if c.ID != 5 {
				t.Errorf("failed UnmarshalGQL changed the cursor to %+v", c)
			}
		})
	}
}

func TestPageInfoCursors(t *testing.T) {
	start, end := Cursor[int]{ID: 1}, Cursor[int]{ID: 2, Value: "b"}
	pi := PageInfo[int]{HasNextPage: true, StartCursor: &start, EndCursor: &end}
	var got Cursor[int]
	if err := got.UnmarshalGQL(marshal(*pi.EndCursor)); err != nil || got.ID != 2 || got.Value != "b" {
		t.Errorf("end cursor round trip: %+v, %v", got, err)
	}
}

// FuzzCursorUnmarshal: no input panics, and whatever decodes re-encodes to
// a cursor that decodes to the same thing.
func FuzzCursorUnmarshal(f *testing.F) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("", -7*3600))
	for _, v := range []any{nil, 1, -3, 2.5, "name", true, at, []byte("x")} {
		f.Add(marshal(Cursor[int]{ID: 12, Value: v}))
	}
	f.Add(b64(`{"i":1,"k":"t","v":"9999-12-31T23:59:59.999999999+14:00"}`))
	f.Add(b64(`{"i":1,"k":"f","v":"NaN"}`))
	f.Add("")
	f.Add("%%%")
	f.Fuzz(func(t *testing.T, s string) {
		var c Cursor[int]
		if err := c.UnmarshalGQL(s); err != nil {
			return
		}
		s2 := marshal(c)
		var c2 Cursor[int]
		if err := c2.UnmarshalGQL(s2); err != nil {
			t.Fatalf("re-encoded cursor %q of %q does not decode: %v", s2, s, err)
		}
		if s3 := marshal(c2); s3 != s2 {
			t.Fatalf("cursor not stable: %q then %q", s2, s3)
		}
	})
}
