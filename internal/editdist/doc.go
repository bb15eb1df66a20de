// Package editdist measures how far apart two names are, to suggest the
// name someone probably meant.
package editdist
