package tool

// ShrinkJSON is shrinkJSON without a schema, for the tests of its cost.
func ShrinkJSON(data []byte, room int) []byte {
	out, _ := shrinkJSON(data, nil, room)
	return out
}
