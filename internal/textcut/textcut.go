// Package textcut cuts text to a size in bytes without splitting a UTF-8
// character: the one cut for titles, log lines and model text alike.
package textcut

import "unicode/utf8"

// Bytes is s cut to at most n bytes on a rune boundary ("" for n ≤ 0).
func Bytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
