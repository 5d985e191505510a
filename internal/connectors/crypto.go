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
// copied onto another credential does not open.
type Sealer struct{ aead cipher.AEAD }

// NewSealer takes the 32-byte secret key.
func NewSealer(key []byte) (*Sealer, error) {
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
	return &Sealer{aead: aead}, nil
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

// Open decrypts what Seal produced with the same ad.
func (s *Sealer) Open(ciphertext, ad []byte) ([]byte, error) {
	ns := s.aead.NonceSize()
	if len(ciphertext) < 1+ns+s.aead.Overhead() || ciphertext[0] != sealVersion {
		return nil, ErrOpen
	}
	pt, err := s.aead.Open(nil, ciphertext[1:1+ns], ciphertext[1+ns:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}
