// Package jsonname holds encoding/json's rule for the name in a json struct
// tag, for the packages that read json tags as encoding/json does.
package jsonname
