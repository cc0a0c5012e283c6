package tensor

import (
	"fmt"
	"strconv"
	"strings"
)

// CheckLiteral checks a query's value for a rank profile input of type t,
// in the tensor literal forms Vespa's container reads (vespajlib
// TensorParser through RankProfileInputProperties): a dense "[1,2,3]"
// (nested arrays flatten; fewer values than cells are zero), a verbose
// "{{x:0}:1,...}", a mapped or mixed short form "{a:1}" for a type with one
// mapped dimension, a hex string of every cell, and any of them behind the
// type, "tensor<float>(x[4]):[...]". Its errors are TensorParser's texts,
// as the JDisc harness (Vespa's container) answers them; an embed(...)
// value is not checked. It does not return the tensor: the emulator only
// refuses what Vespa refuses.
func (t *Type) CheckLiteral(s string) error {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "embed(") {
		return nil
	}
	if strings.HasPrefix(s, "tensor") {
		end := strings.IndexByte(s, ')')
		if end < 0 || end+1 >= len(s) || s[end+1] != ':' {
			return fmt.Errorf("Expected a number, hex string, or a string starting by {, [ or tensor(...)")
		}
		ts := s[:end+1]
		if pt, err := ParseType(ts); err != nil || pt.String() != t.String() {
			return fmt.Errorf("Got tensor with type string '%s', but was passed type %s", ts, t)
		}
		s = strings.TrimSpace(s[end+2:])
	}
	switch {
	case s == "":
		return fmt.Errorf("Expected a number, hex string, or a string starting by {, [ or tensor(...)")
	case s[0] == '[':
		return t.checkDense(s)
	case strings.HasPrefix(s, "{{") || strings.TrimSpace(s) == "{}":
		return t.checkVerbose(s)
	case s[0] == '{':
		if len(t.mappedDims()) != 1 {
			return fmt.Errorf("No suitable dimension in %s for parsing a tensor on the mixed form: Should have one mapped dimension", t)
		}
		return nil
	case isHex(s) && t.dense():
		want := t.denseSize() * hexDigitsPerCell(t.cell)
		if len(s) != want {
			return fmt.Errorf("Expected %d hex digits, but got %d", want, len(s))
		}
		return nil
	}
	return fmt.Errorf("Expected a number, hex string, or a string starting by {, [ or tensor(...)")
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hexDigitsPerCell(cell string) int {
	switch cell {
	case "float":
		return 8
	case "bfloat16":
		return 4
	case "int8":
		return 2
	}
	return 16
}

// checkDense reads the numbers of a dense literal: at most one per cell.
func (t *Type) checkDense(s string) error {
	if !t.dense() {
		return nil // the mixed forms are not checked
	}
	size, n := t.denseSize(), 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '[' || c == ']' || c == ' ':
			i++
		case c == ',':
			if n >= size {
				return fmt.Errorf("At value position %d: Expected a ']' but got ','", i)
			}
			i++
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				j++
			}
			tok := strings.TrimSpace(s[i:j])
			if _, err := strconv.ParseFloat(tok, 64); err != nil {
				return fmt.Errorf("At value position %d: '%s' is not a valid %s", i, tok, literalCell(t.cell))
			}
			n++
			i = j
		}
	}
	return nil
}

func literalCell(cell string) string {
	if cell == "double" {
		return "double"
	}
	return "float"
}

// checkVerbose checks the addresses of "{{x:0,y:a}:1,...}": every
// dimension the type's, every indexed label within its size.
func (t *Type) checkVerbose(s string) error {
	body := strings.TrimSpace(s)
	body = strings.TrimSuffix(strings.TrimPrefix(body, "{"), "}")
	for rest := body; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return fmt.Errorf("Expected a '}' in %s", s)
		}
		var labels []string
		for pair := range strings.SplitSeq(rest[open+1:open+end], ",") {
			dim, label, ok := strings.Cut(pair, ":")
			if !ok {
				return fmt.Errorf("Expected a ':' in tensor address %s", rest[open:open+end+1])
			}
			dim, label = strings.TrimSpace(dim), strings.Trim(strings.TrimSpace(label), `'"`)
			labels = append(labels, label)
			d, found := t.dim(dim)
			if !found {
				return fmt.Errorf("%s does not contain dimension '%s'", t, dim)
			}
			if !d.mapped() {
				if i, err := strconv.Atoi(label); err != nil || i < 0 || i >= d.size {
					return fmt.Errorf("cell address (%s) is not within the bounds of %s", strings.Join(labels, ","), t)
				}
			}
		}
		rest = rest[open+end+1:]
	}
}

func (t *Type) dim(name string) (tensorDim, bool) {
	for _, d := range t.dims {
		if d.name == name {
			return d, true
		}
	}
	return tensorDim{}, false
}
