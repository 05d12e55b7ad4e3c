//go:build !linux && !darwin

package board

// exchange swaps two directories; this platform has no atomic exchange, so it renames.
func exchange(a, b string) error { return swapByRenames(a, b) }
