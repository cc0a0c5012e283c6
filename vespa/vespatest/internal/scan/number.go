// Package scan holds the scanning steps that the emulator's lexers (YQL in
// package search, document selections in package selection) share.
package scan

// DecimalEnd returns the end of the decimal number text that starts at
// s[i]: digits and dots, then an exponent (e or E, an optional sign, at
// least one digit) when one follows. It checks no order of digits and
// dots: the callers' lexers take the text as their grammar's token and
// leave its value to their parsers.
func DecimalEnd(s string, i int) int {
	j := i
	for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
		j++
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	return j
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
