package connectors

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// sealVersion prefixes every ciphertext so the scheme can change later.
const sealVersion = 1

// Sealer encrypts credentials at rest with AES-256-GCM under CHAKSHU_SECRET_KEY.
// Each ciphertext is bound to its row by additional data, so a ciphertext
// copied onto another credential does not open. During a key rotation it also
// opens what earlier keys (CHAKSHU_SECRET_KEY_PREVIOUS) sealed; it always
// seals with the current key.
type Sealer struct {
	aead cipher.AEAD   // the current key
	prev []cipher.AEAD // previous keys, tried in order after the current one
}

// NewSealer takes the 32-byte secret key and any previous keys still accepted
// for opening.
func NewSealer(key []byte, previous ...[]byte) (*Sealer, error) {
	cur, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	s := &Sealer{aead: cur}
	for i, k := range previous {
		a, err := newAEAD(k)
		if err != nil {
			return nil, fmt.Errorf("previous key %d: %w", i+1, err)
		}
		s.prev = append(s.prev, a)
	}
	return s, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("connectors: CHAKSHU_SECRET_KEY must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("connectors: cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("connectors: gcm: %w", err)
	}
	return aead, nil
}

// Seal encrypts plaintext bound to ad: version byte, random nonce, ciphertext.
func (s *Sealer) Seal(plaintext, ad []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("connectors: nonce: %w", err)
	}
	out := append([]byte{sealVersion}, nonce...)
	return s.aead.Seal(out, nonce, plaintext, ad), nil
}

// ErrOpen means a ciphertext did not decrypt: another key, another row, or tampering.
var ErrOpen = errors.New("connectors: credential does not decrypt with this CHAKSHU_SECRET_KEY")

// Open decrypts what Seal produced with the same ad, under the current key
// or a previous one.
func (s *Sealer) Open(ciphertext, ad []byte) ([]byte, error) {
	pt, _, err := s.open(ciphertext, ad)
	return pt, err
}

// open also says whether a previous key opened it.
func (s *Sealer) open(ciphertext, ad []byte) (pt []byte, previous bool, err error) {
	for i, a := range append([]cipher.AEAD{s.aead}, s.prev...) {
		ns := a.NonceSize()
		if len(ciphertext) < 1+ns+a.Overhead() || ciphertext[0] != sealVersion {
			return nil, false, ErrOpen
		}
		if pt, err := a.Open(nil, ciphertext[1:1+ns], ciphertext[1+ns:], ad); err == nil {
			return pt, i > 0, nil
		}
	}
	return nil, false, ErrOpen
}

// Reseal returns ciphertext sealed again under the current key when a
// previous key sealed it (changed true), else ciphertext as it is. ErrOpen
// when no accepted key opens it.
func (s *Sealer) Reseal(ciphertext, ad []byte) (out []byte, changed bool, err error) {
	pt, previous, err := s.open(ciphertext, ad)
	if err != nil {
		return nil, false, err
	}
	if !previous {
		return ciphertext, false, nil
	}
	out, err = s.Seal(pt, ad)
	return out, err == nil, err
}
