package scalar

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestID(t *testing.T) {
	for _, c := range []struct {
		in   any
		want int
		ok   bool
	}{
		{"42", 42, true}, {42, 42, true}, {int64(7), 7, true}, {json.Number("9"), 9, true},
		{"", 0, false}, {"UnVuOjE=", 0, false}, {"-1", 0, false}, {"1.5", 0, false}, {1.5, 0, false}, {true, 0, false}, {nil, 0, false},
	} {
		got, err := UnmarshalID(c.in)
		if c.ok && (err != nil || got != c.want) {
			t.Errorf("UnmarshalID(%#v) = %d, %v; want %d", c.in, got, err, c.want)
		}
		if !c.ok && !errors.Is(err, ErrInvalidID) {
			t.Errorf("UnmarshalID(%#v) = %d, %v; want ErrInvalidID", c.in, got, err)
		}
	}
	var b bytes.Buffer
	MarshalID(1234).MarshalGQL(&b)
	if b.String() != `"1234"` {
		t.Errorf("MarshalID = %s", b.String())
	}
}
