package team

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"
)

// A member's token is "cairn_" + 16 hex digits of public id + "_" + 64 hex digits of secret:
// 64 + 256 random bits from crypto/rand. The server keeps the id (to find the member) and
// HMAC-SHA256(key, token) (to check it), never the token.
//
// Why a keyed fast hash and not argon2id or bcrypt: those slow hashes protect passwords a person
// chose, which an attacker can guess; a token of 256 random bits cannot be guessed, so slowing
// each check only makes every request cost tens of milliseconds of CPU (and a flood of wrong
// tokens a denial of service). The key (Store.Key) lives apart from the MACs (for the SQLite
// store, in .cairn/team.key, mode 0600), so a leaked copy of team.db cannot even test a token.
// The MAC is compared in constant time (subtle.ConstantTimeCompare); the lookup is by the public
// id, so no comparison of secret bytes happens in the database.
const (
	tokenPrefix    = "cairn_"
	tokenIDBytes   = 8
	tokenSecretLen = 32
)

// NewToken makes a token and returns it with its public id.
func NewToken() (token, id string, err error) {
	var b [tokenIDBytes + tokenSecretLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("generate token: %w", err)
	}
	id = hex.EncodeToString(b[:tokenIDBytes])
	return tokenPrefix + id + "_" + hex.EncodeToString(b[tokenIDBytes:]), id, nil
}

// TokenID is the public id of a well-formed token; ok is false for anything else.
func TokenID(token string) (id string, ok bool) {
	rest, found := strings.CutPrefix(token, tokenPrefix)
	if !found {
		return "", false
	}
	id, secret, found := strings.Cut(rest, "_")
	if !found || len(id) != 2*tokenIDBytes || len(secret) != 2*tokenSecretLen || !isHex(id) || !isHex(secret) {
		return "", false
	}
	return id, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// TokenMAC is HMAC-SHA256 of token under key: what a store keeps.
func TokenMAC(key []byte, token string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(token))
	return m.Sum(nil)
}

// macEqual compares two MACs in constant time.
func macEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
