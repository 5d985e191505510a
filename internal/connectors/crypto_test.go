package connectors

import (
	"bytes"
	"errors"
	"testing"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func TestSealer(t *testing.T) {
	s, err := NewSealer(key(1))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := s.Seal([]byte("jira-token-123"), []byte("row-a"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ct, []byte("jira-token-123")) {
		t.Fatal("ciphertext contains the plaintext")
	}
	ct2, _ := s.Seal([]byte("jira-token-123"), []byte("row-a"))
	if bytes.Equal(ct, ct2) {
		t.Fatal("two seals of the same plaintext are equal: nonce reused")
	}
	pt, err := s.Open(ct, []byte("row-a"))
	if err != nil || string(pt) != "jira-token-123" {
		t.Fatalf("Open = %q, %v", pt, err)
	}
	other, _ := NewSealer(key(2))
	flipped := append([]byte(nil), ct...)
	flipped[len(flipped)-1] ^= 1
	for _, c := range []struct {
		name string
		s    *Sealer
		ct   []byte
		ad   string
	}{
		{"other row", s, ct, "row-b"},
		{"other key", other, ct, "row-a"},
		{"tampered", s, flipped, "row-a"},
		{"truncated", s, ct[:10], "row-a"},
		{"empty", s, nil, "row-a"},
		{"bad version", s, append([]byte{9}, ct[1:]...), "row-a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.s.Open(c.ct, []byte(c.ad)); !errors.Is(err, ErrOpen) {
				t.Fatalf("Open = %v, want ErrOpen", err)
			}
		})
	}
}

func TestNewSealerKeyLength(t *testing.T) {
	for _, n := range []int{0, 16, 31, 33, 64} {
		if _, err := NewSealer(make([]byte, n)); err == nil {
			t.Errorf("NewSealer accepted a %d-byte key", n)
		}
	}
}

// During a rotation the sealer opens what the previous key sealed, seals with
// the current one, and Reseal moves only previous-key values.
func TestSealerPreviousKey(t *testing.T) {
	old, _ := NewSealer(key(1))
	ct, _ := old.Seal([]byte("s3cret"), []byte("row"))
	rot, err := NewSealer(key(2), key(3), key(1))
	if err != nil {
		t.Fatal(err)
	}
	if pt, err := rot.Open(ct, []byte("row")); err != nil || string(pt) != "s3cret" {
		t.Fatalf("previous key's ciphertext: %q %v", pt, err)
	}
	if _, err := rot.Open(ct, []byte("other")); !errors.Is(err, ErrOpen) {
		t.Fatalf("previous key, other row: %v", err)
	}
	fresh, _ := rot.Seal([]byte("s3cret"), []byte("row"))
	if _, err := old.Open(fresh, []byte("row")); !errors.Is(err, ErrOpen) {
		t.Fatal("the rotating sealer sealed with the previous key")
	}
	out, changed, err := rot.Reseal(ct, []byte("row"))
	if err != nil || !changed {
		t.Fatalf("reseal of a previous key's value: changed %v, %v", changed, err)
	}
	current, _ := NewSealer(key(2))
	if pt, err := current.Open(out, []byte("row")); err != nil || string(pt) != "s3cret" {
		t.Fatalf("resealed value under the current key alone: %q %v", pt, err)
	}
	if again, changed, err := rot.Reseal(out, []byte("row")); err != nil || changed || !bytes.Equal(again, out) {
		t.Fatalf("reseal of a current value: changed %v, %v", changed, err)
	}
	stranger, _ := NewSealer(key(4))
	other, _ := stranger.Seal([]byte("x"), []byte("row"))
	if _, _, err := rot.Reseal(other, []byte("row")); !errors.Is(err, ErrOpen) {
		t.Fatalf("reseal of an unknown key's value: %v", err)
	}
	if _, err := NewSealer(key(2), []byte("short")); err == nil {
		t.Fatal("a short previous key was accepted")
	}
}
