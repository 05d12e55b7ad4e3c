//go:build !unix

package workspace

// oNonblock is not needed where FIFOs cannot be opened as files.
const oNonblock = 0

func checkWritableDir(string) error { return nil }
