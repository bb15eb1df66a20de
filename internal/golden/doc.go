// Package golden compares test output with files under testdata/ and, with
// the -update flag, rewrites them.
package golden
