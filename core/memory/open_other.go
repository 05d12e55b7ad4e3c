//go:build !unix

package memory

// oNonblock is not needed where FIFOs cannot be opened as files.
const oNonblock = 0
