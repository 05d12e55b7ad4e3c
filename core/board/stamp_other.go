//go:build !unix

package board

import "io/fs"

// fileIdentity is unknown on this platform; size and time still identify a version.
func fileIdentity(fs.FileInfo) (uint64, uint64) { return 0, 0 }
