package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of a field type.
type Kind int

// The kinds of field types. Array, WeightedSet and Map have an element type
// ([Type.Elem]; a map also [Type.Key]); Struct names a struct
// ([Type.Struct]); Reference names a document type ([Type.Reference]);
// Tensor has a [TensorType].
const (
	Invalid Kind = iota
	String
	Int
	Long
	Float
	Double
	Bool
	Byte
	Position
	URI
	Predicate
	Raw
	Reference
	Array
	WeightedSet
	Map
	Struct
	Tensor
)

var kindNames = [...]string{
	Invalid: "invalid", String: "string", Int: "int", Long: "long", Float: "float", Double: "double",
	Bool: "bool", Byte: "byte", Position: "position", URI: "uri", Predicate: "predicate", Raw: "raw",
	Reference: "reference", Array: "array", WeightedSet: "weightedset", Map: "map", Struct: "struct",
	Tensor: "tensor",
}

// String returns Vespa's name of the kind: "string", "array", "tensor".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// primitives are the type names that are a kind of their own.
var primitives = map[string]Kind{
	"string": String, "int": Int, "long": Long, "float": Float, "double": Double, "bool": Bool,
	"byte": Byte, "position": Position, "uri": URI, "predicate": Predicate, "raw": Raw,
}

// Numeric reports whether the kind is a number: byte, int, long, float or
// double.
func (k Kind) Numeric() bool {
	switch k {
	case Byte, Int, Long, Float, Double:
		return true
	}
	return false
}

// Type is a field's data type. The zero value is not a type.
type Type struct {
	// Kind is the type's kind.
	Kind Kind
	// Elem is the element type of an array or weighted set, and the value
	// type of a map.
	Elem *Type
	// Key is the key type of a map.
	Key *Type
	// Struct is the name of a struct type (Kind Struct).
	Struct string
	// Reference is the document type a reference points to (Kind
	// Reference).
	Reference string
	// Tensor is the cell type and dimensions of a tensor (Kind Tensor).
	Tensor *TensorType
}

// String returns the type as a schema writes it: "array<string>",
// "map<string,int>", "reference<artist>", "tensor<float>(x[384])".
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	switch t.Kind {
	case Array:
		return "array<" + t.Elem.String() + ">"
	case WeightedSet:
		return "weightedset<" + t.Elem.String() + ">"
	case Map:
		return "map<" + t.Key.String() + "," + t.Elem.String() + ">"
	case Struct:
		return t.Struct
	case Reference:
		return "reference<" + t.Reference + ">"
	case Tensor:
		return t.Tensor.String()
	}
	return t.Kind.String()
}

// CellType is the value type of a tensor's cells.
type CellType string

// Vespa's tensor cell types. Double is the default.
const (
	CellDouble   CellType = "double"
	CellFloat    CellType = "float"
	CellBFloat16 CellType = "bfloat16"
	CellInt8     CellType = "int8"
)

// TensorType is a tensor's cell type and dimensions, as in
// tensor<float>(cat{},x[384]).
type TensorType struct {
	// Cell is the cell value type.
	Cell CellType
	// Dims are the dimensions in the order written; Vespa orders them by
	// name, [TensorType.String] does too.
	Dims []Dim
}

// Dim is one dimension of a tensor: mapped (cat{}) or indexed (x[384]).
type Dim struct {
	// Name is the dimension name.
	Name string
	// Mapped is true for a mapped (sparse) dimension.
	Mapped bool
	// Size is the size of an indexed dimension; 0 for a mapped one.
	Size int
}

// String returns "tensor<float>(x[384])" (no <cell> for double).
func (t *TensorType) String() string {
	var b strings.Builder
	b.WriteString("tensor")
	if t.Cell != CellDouble && t.Cell != "" {
		b.WriteString("<" + string(t.Cell) + ">")
	}
	b.WriteByte('(')
	dims := slices.Clone(t.Dims)
	slices.SortFunc(dims, func(x, y Dim) int { return strings.Compare(x.Name, y.Name) })
	for i, d := range dims {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.Name)
		if d.Mapped {
			b.WriteString("{}")
		} else {
			b.WriteString("[" + strconv.Itoa(d.Size) + "]")
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Dense reports whether every dimension is indexed (and there is at least
// one).
func (t *TensorType) Dense() bool {
	for _, d := range t.Dims {
		if d.Mapped {
			return false
		}
	}
	return len(t.Dims) > 0
}

// Sparse reports whether every dimension is mapped (and there is at least
// one).
func (t *TensorType) Sparse() bool {
	for _, d := range t.Dims {
		if !d.Mapped {
			return false
		}
	}
	return len(t.Dims) > 0
}

// Dim returns the named dimension.
func (t *TensorType) Dim(name string) (Dim, bool) {
	for _, d := range t.Dims {
		if d.Name == name {
			return d, true
		}
	}
	return Dim{}, false
}

// ParseType reads Vespa's text of a field type: "string", "array<int>",
// "map<string,array<int>>", "weightedset<string>", "reference<artist>",
// "tensor<int8>(x[8],cat{})", the old "string[]" for an array, or the name
// of a struct (any other identifier: [NewApplication] checks that the
// struct exists). Blanks are allowed between the parts.
func ParseType(text string) (*Type, error) {
	p := typeParser{s: strings.Join(strings.Fields(text), "")}
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.s) {
		return nil, fmt.Errorf("type %q: unexpected %q", text, p.s[p.i:])
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) ident() string {
	j := p.i
	for j < len(p.s) && (isIdentByte(p.s[j]) || (j > p.i && p.s[j] == '-')) {
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// typeAfter reads the byte c, then a type.
func (p *typeParser) typeAfter(c byte) (*Type, error) {
	if err := p.expect(c); err != nil {
		return nil, err
	}
	return p.typ()
}

func (p *typeParser) expect(c byte) error {
	if p.i >= len(p.s) || p.s[p.i] != c {
		return fmt.Errorf("type %q: %q expected at offset %d", p.s, c, p.i)
	}
	p.i++
	return nil
}

func (p *typeParser) typ() (*Type, error) {
	name := p.ident()
	if name == "" {
		return nil, fmt.Errorf("type %q: a type name expected at offset %d", p.s, p.i)
	}
	var t *Type
	switch name {
	case "array", "weightedset":
		elem, err := p.typeAfter('<')
		if err == nil {
			err = p.expect('>')
		}
		if err != nil {
			return nil, err
		}
		t = &Type{Kind: Array, Elem: elem}
		if name == "weightedset" {
			t.Kind = WeightedSet
			if elem.Kind != String && elem.Kind != Int && elem.Kind != Long {
				return nil, fmt.Errorf("type %q: a weighted set holds string, int or long, not %s", p.s, elem)
			}
		}
	case "map":
		key, err := p.typeAfter('<')
		if err != nil {
			return nil, err
		}
		val, err := p.typeAfter(',')
		if err == nil {
			err = p.expect('>')
		}
		if err != nil {
			return nil, err
		}
		if _, ok := primitives[key.String()]; !ok {
			return nil, fmt.Errorf("type %q: a map key is a primitive type, not %s", p.s, key)
		}
		t = &Type{Kind: Map, Key: key, Elem: val}
	case "reference":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		doc := p.ident()
		if doc == "" {
			return nil, fmt.Errorf("type %q: a document type expected in reference<>", p.s)
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		t = &Type{Kind: Reference, Reference: doc}
	case "tensor":
		tt, err := p.tensor()
		if err != nil {
			return nil, err
		}
		t = &Type{Kind: Tensor, Tensor: tt}
	case "annotationreference":
		return nil, fmt.Errorf("type %q: annotationreference is not supported", p.s)
	default:
		if k, ok := primitives[name]; ok {
			t = &Type{Kind: k}
		} else {
			t = &Type{Kind: Struct, Struct: name}
		}
	}
	if strings.HasPrefix(p.s[p.i:], "[]") {
		p.i += 2
		t = &Type{Kind: Array, Elem: t}
	}
	return t, nil
}

// tensor reads <cell>(dims) after the word tensor.
func (p *typeParser) tensor() (*TensorType, error) {
	tt := &TensorType{Cell: CellDouble}
	if p.i < len(p.s) && p.s[p.i] == '<' {
		p.i++
		cell := CellType(p.ident())
		switch cell {
		case CellDouble, CellFloat, CellBFloat16, CellInt8:
		default:
			return nil, fmt.Errorf("type %q: unknown tensor cell type %q (want double, float, bfloat16 or int8)", p.s, cell)
		}
		tt.Cell = cell
		if err := p.expect('>'); err != nil {
			return nil, err
		}
	}
	if err := p.expect('('); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for p.i < len(p.s) && p.s[p.i] != ')' {
		if len(tt.Dims) > 0 {
			if err := p.expect(','); err != nil {
				return nil, err
			}
		}
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("type %q: a dimension name expected at offset %d", p.s, p.i)
		}
		if seen[name] {
			return nil, fmt.Errorf("type %q: dimension %q twice", p.s, name)
		}
		seen[name] = true
		d := Dim{Name: name}
		switch {
		case strings.HasPrefix(p.s[p.i:], "{}"):
			p.i += 2
			d.Mapped = true
		case p.i < len(p.s) && p.s[p.i] == '[':
			p.i++
			j := strings.IndexByte(p.s[p.i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("type %q: ']' expected", p.s)
			}
			n, err := strconv.Atoi(p.s[p.i : p.i+j])
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("type %q: dimension %s needs a positive size, not %q", p.s, name, p.s[p.i:p.i+j])
			}
			d.Size = n
			p.i += j + 1
		default:
			return nil, fmt.Errorf("type %q: dimension %s is neither mapped ({}) nor indexed ([N])", p.s, name)
		}
		tt.Dims = append(tt.Dims, d)
	}
	if err := p.expect(')'); err != nil {
		return nil, err
	}
	return tt, nil
}
