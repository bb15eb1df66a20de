// Package tagvalue reads the single-quoted values of the struct tag
// languages in this module: the tool tag of package schema and the bind tag
// of package bind. A value that holds a comma is written in single quotes,
// and a doubled quote inside stands for one quote:
//
//	title='it''s, in short'
package tagvalue
