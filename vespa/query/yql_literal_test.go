package query

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestWriteLiteral_integerKinds(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string // "" for an error
	}{
		{int(-3), "-3"}, {int8(-128), "-128"}, {int16(300), "300"}, {int32(math.MinInt32), "-2147483648"},
		{int64(math.MaxInt32) + 1, "2147483648L"}, {int(math.MinInt64), "-9223372036854775808L"},
		{uint(7), "7"}, {uint8(255), "255"}, {uint16(65535), "65535"}, {uint32(math.MaxUint32), "4294967295L"},
		{uint64(math.MaxInt64), "9223372036854775807L"}, {uint(math.MaxInt64) + 1, ""}, {uint64(math.MaxUint64), ""},
	} {
		var b strings.Builder
		err := writeLiteral(&b, c.v)
		switch {
		case c.want == "" && !errors.Is(err, ErrInvalidYQL):
			t.Errorf("%T(%v): %q, %v; want ErrInvalidYQL", c.v, c.v, b.String(), err)
		case c.want != "" && (err != nil || b.String() != c.want):
			t.Errorf("%T(%v): %q, %v; want %q", c.v, c.v, b.String(), err, c.want)
		}
	}
}
