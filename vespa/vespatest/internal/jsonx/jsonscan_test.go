package jsonx

import "testing"

func TestStringEnd(t *testing.T) {
	for _, c := range []struct {
		raw  string
		i    int
		want int
	}{
		{`"abc"`, 0, 5},
		{`x:"a\"b",`, 2, 8},
		{`"a\\"b"`, 0, 5},
		{`"\u00e9"`, 0, 8},
		{`"open`, 0, -1},
		{`"ends in a backslash\`, 0, -1},
	} {
		if got := StringEnd([]byte(c.raw), c.i); got != c.want {
			t.Errorf("StringEnd(%q, %d) = %d, want %d", c.raw, c.i, got, c.want)
		}
	}
}

func TestSkipWS(t *testing.T) {
	if got := SkipWS([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("SkipWS = %d, want 5", got)
	}
	if got := SkipWS([]byte("  "), 1); got != 2 {
		t.Errorf("SkipWS at the end = %d, want 2", got)
	}
}
