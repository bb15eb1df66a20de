// Package jsondepth measures how deeply JSON text nests, in one pass over
// its bytes and before anything parses it, so that a document nested too
// deeply is refused at a cost linear in its size.
package jsondepth

// Deepest returns how deeply the arrays and objects of data nest, not
// counting brackets inside strings. It stops reading once the nesting
// passes limit, and then returns limit+1. It does not check that data is
// JSON: the parser that follows says what is wrong with it.
func Deepest(data []byte, limit int) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return deepest
				}
			}
		case b == ']' || b == '}':
			depth--
		}
	}
	return deepest
}
