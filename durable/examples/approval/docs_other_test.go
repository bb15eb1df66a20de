//go:build !linux

package main

// runDocScript runs TestDocumentedCommands' script, on Linux alone.
func runDocScript() {}
