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
