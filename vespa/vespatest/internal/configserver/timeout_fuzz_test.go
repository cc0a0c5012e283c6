package configserver

import (
	"regexp"
	"strings"
	"testing"
)

// javaDoubleGrammar is the grammar of Double.valueOf's documentation
// (FloatValue: Signopt NaN, Signopt Infinity, Signopt FloatingPointLiteral,
// Signopt HexFloatingPointLiteral, Signopt SignedInteger), written as a
// regular expression independently of parseJavaDouble.
var javaDoubleGrammar = regexp.MustCompile(`^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)$`)

func FuzzParseJavaDouble(f *testing.F) {
	for _, s := range []string{"90", "2.5", "1e1", " 1.5 ", "3d", ".5f", "0x1p2", "0x10", "-1", "NaN", "Infinity", "inf", "1_0", "10s", "+-1", "1.", ".", "1e", "0x.8p1", "-Infinity"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, ok := parseJavaDouble(s)
		want := javaDoubleGrammar.MatchString(strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
		if ok != want {
			t.Errorf("parseJavaDouble(%q) ok = %v, Java's grammar says %v", s, ok, want)
		}
	})
}
