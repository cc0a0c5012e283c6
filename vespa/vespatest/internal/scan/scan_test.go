package scan

import "testing"

func TestDecimalEnd(t *testing.T) {
	for _, c := range []struct {
		s    string
		i    int
		want int
	}{
		{"12", 0, 2},
		{"1.5 ", 0, 3},
		{"x=3.25)", 2, 6},
		{"1e5", 0, 3},
		{"1E+5x", 0, 4},
		{"2.5e-10,", 0, 7},
		{"1e", 0, 1},   // no exponent digit: the e is not the number's
		{"1e+", 0, 1},  // nor is a sign without digits
		{"1ex", 0, 1},  //
		{"7L", 0, 1},   // suffixes are the callers' to take
		{"abc", 0, 0},  // no number at all
		{"1..2", 0, 4}, // dots are not checked
	} {
		if got := DecimalEnd(c.s, c.i); got != c.want {
			t.Errorf("DecimalEnd(%q, %d) = %d, want %d", c.s, c.i, got, c.want)
		}
	}
}

func TestControlEscape(t *testing.T) {
	for e, want := range map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'f': '\f'} {
		if c, ok := ControlEscape(e); !ok || c != want {
			t.Errorf("ControlEscape(%q) = %q, %v; want %q", e, c, ok, want)
		}
	}
	for _, e := range []byte{'b', 'u', 'x', '"', '\\', 'N', 0} {
		if c, ok := ControlEscape(e); ok {
			t.Errorf("ControlEscape(%q) = %q, true; want false", e, c)
		}
	}
}
