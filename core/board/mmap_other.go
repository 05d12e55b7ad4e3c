//go:build !linux

package board

import "os"

// readWhole reads a snapshot file into memory; release is a no-op.
func readWhole(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
