package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// TokenFile is where cairn serve writes its token, relative to the workspace root, so local
// scripts that can read the workspace can call the API and nobody else can.
const TokenFile = ".cairn/serve.token"

// LockFile is the lock a running cairn serve holds for its whole life, relative to the workspace
// root: one daemon per workspace, so a second one cannot replace the first one's token.
const LockFile = ".cairn/serve.lock"

// lockWait is how long a starting daemon tries for LockFile. The lock is held by a daemon for as
// long as it runs, so waiting the usual --wait would only delay the answer.
const lockWait = 100 * time.Millisecond

// Lock takes LockFile exclusively; the daemon holds it until it exits and must take it before it
// writes the token. Another daemon holding it is STORAGE_BUSY at once.
func Lock(ws *workspace.Workspace) (*workspace.Lock, error) {
	dir, err := ws.StateDir()
	if err != nil {
		return nil, err
	}
	lock, err := workspace.LockFile(context.Background(), filepath.Join(dir, filepath.Base(LockFile)), true, lockWait)
	if err != nil && errs.CodeOf(err) == errs.Busy {
		return nil, errs.New(errs.Busy, "another cairn serve is already running in this workspace (%s); stop it or use its URL", LockFile)
	}
	return lock, err
}

// NewToken returns 32 random bytes from crypto/rand as 64 hex digits.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// WriteToken stores token in .cairn/serve.token with mode 0600, atomically, and returns the path.
func WriteToken(ws *workspace.Workspace, token string) (string, error) {
	dir, err := ws.StateDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.Base(TokenFile))
	if err := workspace.WriteFileAtomic(path, []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return path, nil
}

// RemoveToken deletes the token file when it still holds token (another daemon may have
// replaced it since), so a stopped daemon leaves no usable secret behind.
func RemoveToken(path, token string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("read %s: %w", path, err)
	}
	if strings.TrimSpace(string(data)) != token {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// CheckAddr validates a listen address and refuses one that is reachable from other machines
// unless allowRemote: an empty host (every interface) or any address that is not loopback.
func CheckAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errs.Invalidf("--addr %q is not HOST:PORT (for example 127.0.0.1:7777): %v", addr, err)
	}
	if port == "" {
		return errs.Invalidf("--addr %q has no port (for example 127.0.0.1:7777)", addr)
	}
	if allowRemote || IsLoopback(host) {
		return nil
	}
	return errs.Invalidf("--addr %s is not a loopback address; the daemon answers anyone who can reach it with the token, over plain HTTP. Use 127.0.0.1 or ::1, or pass --allow-remote", addr)
}

// IsLoopback reports whether host names only this machine: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
