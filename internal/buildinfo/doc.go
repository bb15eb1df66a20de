// Package buildinfo reads the version of the running program from what the
// go command recorded when it built the program.
package buildinfo
