package scan

// ControlEscape returns the control character that a backslash escape
// \e stands for in the YQL, grouping and document selection grammars: \n,
// \t, \r and \f. ok is false for any other e.
func ControlEscape(e byte) (c byte, ok bool) {
	switch e {
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'f':
		return '\f', true
	}
	return 0, false
}
