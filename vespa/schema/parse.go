package schema

import (
	"strings"
)

// Parse reads the text of one .sd file, named file in errors (its base
// name, say "music.sd"). It returns the schema as written: inheritance is
// resolved by [NewApplication], which also checks what the file names.
//
// Every construct is read or refused: a keyword this parser does not know
// in its place is an [*Error] matching [ErrUnsupported], with the file, the
// line and the keyword; anything malformed (a field without a type, an
// unknown type, a '{' never closed) is an [*Error] too. The grammar is that
// of Vespa's config-model SchemaParser.jj.
func Parse(file string, src []byte) (*Schema, error) {
	items, err := readItems(file, string(src))
	if err != nil {
		return nil, err
	}
	p := &parser{file: file}
	return p.file_(items)
}

type parser struct {
	file string
}

func (p *parser) errorf(it *item, format string, args ...any) error {
	return newError(p.file, it.line, it.header(), format, args...)
}

// unknown refuses an item that has no meaning where it is.
func (p *parser) unknown(it *item, where string) error {
	e := newError(p.file, it.line, it.keyword(), "unknown or unsupported construct in %s", where)
	e.Unsupported = true
	return e
}

// header is the item's header, for errors: "field year type int".
func (it *item) header() string {
	h := strings.Join(it.words, " ")
	if len(h) > 60 {
		h = h[:60] + "..."
	}
	return h
}

// text is the item's value or raw block.
func (it *item) text() string {
	if it.hasValue {
		return it.value
	}
	return it.raw
}

func (p *parser) file_(items []*item) (*Schema, error) {
	if len(items) == 0 {
		return nil, newError(p.file, 1, "schema", "the file declares no schema")
	}
	first := items[0]
	switch first.keyword() {
	case "schema", "search":
		if len(items) > 1 {
			return nil, p.errorf(items[1], "text after the schema block")
		}
		return p.schema(first)
	case "document":
		// A file of documents only, for inheritance.
		s := &Schema{File: p.file, Line: first.line}
		for _, it := range items {
			if it.keyword() != "document" {
				return nil, p.unknown(it, "a document-only file")
			}
			if s.Document != nil {
				return nil, p.errorf(it, "a second document in a document-only file")
			}
			d, err := p.document(it, "")
			if err != nil {
				return nil, err
			}
			s.Name, s.Document = d.Name, d
		}
		return s, nil
	}
	return nil, p.unknown(first, "the file (schema expected)")
}

// names reads "a, b" or "a,b" after inherits.
func splitNames(words []string) []string {
	var out []string
	for w := range strings.SplitSeq(strings.Join(words, " "), ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// blockHeader reads the header "kw name [inherits a, b]" of an item that
// must have a block: schema, document, struct, rank-profile,
// document-summary.
func (p *parser) blockHeader(it *item, nameOptional bool) (string, []string, error) {
	if err := p.needBlock(it); err != nil {
		return "", nil, err
	}
	w := it.words[1:]
	name := ""
	if len(w) > 0 && w[0] != "inherits" {
		name, w = w[0], w[1:]
	}
	if name == "" && !nameOptional {
		return "", nil, p.errorf(it, "a name expected")
	}
	if name != "" && !validName(name) {
		return "", nil, p.errorf(it, "invalid name %q", name)
	}
	var inherits []string
	if len(w) > 0 {
		if w[0] != "inherits" || len(w) < 2 {
			return "", nil, p.errorf(it, "unexpected %q (inherits NAME expected)", strings.Join(w, " "))
		}
		inherits = splitNames(w[1:])
		for _, n := range inherits {
			if !validName(n) {
				return "", nil, p.errorf(it, "invalid name %q", n)
			}
		}
	}
	return name, inherits, nil
}

// validName reports whether s is an identifier (letters, digits, _ and -,
// not starting with a digit or -).
func validName(s string) bool {
	if s == "" || s[0] == '-' || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func (p *parser) needBlock(it *item) error {
	if !it.hasBlock || it.raw != "" {
		return p.errorf(it, "a block { ... } expected")
	}
	return nil
}

func (p *parser) schema(it *item) (*Schema, error) {
	name, inherits, err := p.blockHeader(it, false)
	if err != nil {
		return nil, err
	}
	if len(inherits) > 1 {
		return nil, p.errorf(it, "a schema inherits at most one schema")
	}
	s := &Schema{Name: name, File: p.file, Line: it.line}
	if len(inherits) == 1 {
		s.Inherits = inherits[0]
	}
	for _, c := range it.block {
		switch c.keyword() {
		case "document":
			if s.Document != nil {
				return nil, p.errorf(c, "a schema has one document")
			}
			d, err := p.document(c, name)
			if err != nil {
				return nil, err
			}
			s.Document = d
		case "field":
			f, err := p.field(c)
			if err != nil {
				return nil, err
			}
			s.Fields = append(s.Fields, f)
		case "struct":
			st, err := p.structType(c)
			if err != nil {
				return nil, err
			}
			s.Structs = append(s.Structs, st)
		case "fieldset":
			fs, err := p.fieldSet(c)
			if err != nil {
				return nil, err
			}
			s.FieldSets = append(s.FieldSets, fs)
		case "rank-profile":
			rp, err := p.rankProfile(c)
			if err != nil {
				return nil, err
			}
			s.RankProfiles = append(s.RankProfiles, rp)
		case "document-summary":
			ds, err := p.documentSummary(c)
			if err != nil {
				return nil, err
			}
			s.Summaries = append(s.Summaries, ds)
		case "import":
			f, err := p.importField(c)
			if err != nil {
				return nil, err
			}
			s.ImportedFields = append(s.ImportedFields, f)
		case "stemming", "raw-as-base64-in-summary", "document-id", "index", "constant", "onnx-model":
			// Schema-wide settings that do not change documents or
			// queries' fields; read and set aside.
			if c.keyword() != "index" && c.keyword() != "onnx-model" && c.keyword() != "constant" && c.hasBlock {
				return nil, p.errorf(c, "takes no block")
			}
		default:
			return nil, p.unknown(c, "schema "+name)
		}
	}
	if s.Document == nil {
		return nil, p.errorf(it, "schema %s declares no document", name)
	}
	return s, nil
}

func (p *parser) document(it *item, schemaName string) (*Document, error) {
	name, inherits, err := p.blockHeader(it, schemaName != "")
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = schemaName
	}
	if schemaName != "" && name != schemaName {
		return nil, p.errorf(it, "document %s in schema %s: the document must have the schema's name", name, schemaName)
	}
	d := &Document{Name: name, Line: it.line, Inherits: inherits}
	for _, c := range it.block {
		switch c.keyword() {
		case "field":
			f, err := p.field(c)
			if err != nil {
				return nil, err
			}
			d.Fields = append(d.Fields, f)
		case "struct":
			st, err := p.structType(c)
			if err != nil {
				return nil, err
			}
			d.Structs = append(d.Structs, st)
		default:
			return nil, p.unknown(c, "document "+name)
		}
	}
	return d, nil
}

func (p *parser) structType(it *item) (*StructType, error) {
	name, inherits, err := p.blockHeader(it, false)
	if err != nil {
		return nil, err
	}
	st := &StructType{Name: name, Line: it.line, Inherits: inherits}
	for _, c := range it.block {
		if c.keyword() != "field" {
			return nil, p.unknown(c, "struct "+name)
		}
		f, err := p.field(c)
		if err != nil {
			return nil, err
		}
		st.Fields = append(st.Fields, f)
	}
	return st, nil
}

// field reads field NAME type TYPE { ... }.
func (p *parser) field(it *item) (*Field, error) {
	w := it.words
	if len(w) < 4 || w[2] != "type" {
		return nil, p.errorf(it, "field NAME type TYPE expected")
	}
	if !validName(w[1]) || strings.Contains(w[1], "-") {
		return nil, p.errorf(it, "invalid field name %q", w[1])
	}
	t, err := ParseType(strings.Join(w[3:], " "))
	if err != nil {
		return nil, p.errorf(it, "%v", err)
	}
	if !it.hasBlock {
		return nil, p.errorf(it, "a block { ... } expected after the type")
	}
	f := &Field{Name: w[1], Line: it.line, Type: t}
	if err := p.fieldBody(f, it.block, "field "+f.Name); err != nil {
		return nil, err
	}
	return f, nil
}

// fieldBody reads the settings of a field or struct-field.
func (p *parser) fieldBody(f *Field, items []*item, where string) error {
	for _, c := range items {
		kw := c.keyword()
		switch kw {
		case "indexing":
			if len(c.words) != 1 {
				return p.errorf(c, "indexing: SCRIPT expected")
			}
			script := c.text()
			if !c.hasValue {
				script = joinStatements(c.raw)
			}
			if script == "" {
				return p.errorf(c, "empty indexing script")
			}
			if f.Indexing != "" {
				f.Indexing += "; "
			}
			f.Indexing += script
			for _, step := range indexingSteps(script) {
				switch step {
				case "attribute":
					f.Attribute = true
				case "index":
					f.Index = true
				case "summary":
					f.Summary = true
				}
			}
		case "attribute":
			vals, err := p.settings(c)
			if err != nil {
				return err
			}
			f.AttributeSettings = append(f.AttributeSettings, vals...)
			for _, v := range vals {
				if m, ok := strings.CutPrefix(v, "distance-metric:"); ok {
					f.DistanceMetric = strings.TrimSpace(m)
				}
			}
		case "index":
			vals, err := p.settings(c)
			if err != nil {
				return err
			}
			f.IndexSettings = append(f.IndexSettings, vals...)
		case "match":
			vals, err := p.settings(c)
			if err != nil {
				return err
			}
			f.Match = append(f.Match, vals...)
		case "rank":
			vals, err := p.settings(c)
			if err != nil {
				return err
			}
			f.Rank = append(f.Rank, vals...)
		case "struct-field":
			if len(c.words) != 2 || !c.hasBlock {
				return p.errorf(c, "struct-field NAME { ... } expected")
			}
			sf := &Field{Name: c.words[1], Line: c.line}
			if err := p.fieldBody(sf, c.block, where+" struct-field "+sf.Name); err != nil {
				return err
			}
			f.StructFields = append(f.StructFields, sf)
		case "summary", "alias", "bolding", "dictionary", "sorting", "stemming", "normalizing", "id",
			"query-command", "summary-to", "weight", "weightedset", "linguistics", "rank-type":
			vals, err := p.settings(c)
			if err != nil {
				return err
			}
			key := strings.Join(c.words, " ")
			if len(vals) == 0 {
				f.Settings = append(f.Settings, Setting{Key: key})
			}
			for _, v := range vals {
				f.Settings = append(f.Settings, Setting{Key: key, Value: v})
			}
		default:
			return p.unknown(c, where)
		}
	}
	return nil
}

// settings reads "kw: value", "kw { a; b: c; d { ... } }" or a bare "kw"
// as a list of values: ["value"] or ["a", "b: c", "d"].
func (p *parser) settings(it *item) ([]string, error) {
	switch {
	case it.hasValue:
		if it.value == "" {
			return nil, p.errorf(it, "a value expected after ':'")
		}
		return []string{it.value}, nil
	case it.hasBlock:
		var out []string
		for _, c := range it.block {
			s := strings.Join(c.words, " ")
			if c.hasValue {
				s += ": " + c.value
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, nil
}

// joinStatements joins the lines of a multi-line indexing script with "; ".
func joinStatements(raw string) string {
	return strings.Join(splitNormalized(raw, "\n;"), "; ")
}

// indexingSteps splits an indexing script into its steps: "summary",
// "index", "input title" and so on.
func indexingSteps(s string) []string { return splitNormalized(s, ";|") }

// splitNormalized splits s at any of seps and returns the non-empty parts
// with their runs of white space made single spaces.
func splitNormalized(s, seps string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if part = strings.Join(strings.Fields(part), " "); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func (p *parser) fieldSet(it *item) (*FieldSet, error) {
	if err := p.needBlock(it); err != nil {
		return nil, err
	}
	if len(it.words) != 2 || !validName(it.words[1]) {
		return nil, p.errorf(it, "fieldset NAME { ... } expected")
	}
	fs := &FieldSet{Name: it.words[1], Line: it.line}
	for _, c := range it.block {
		switch c.keyword() {
		case "fields":
			if !c.hasValue {
				return nil, p.errorf(c, "fields: a, b expected")
			}
			fs.Fields = append(fs.Fields, splitNames([]string{c.value})...)
		case "query-command":
			vals, err := p.settings(c)
			if err != nil {
				return nil, err
			}
			fs.QueryCommands = append(fs.QueryCommands, vals...)
		case "match":
			vals, err := p.settings(c)
			if err != nil {
				return nil, err
			}
			fs.Match = append(fs.Match, vals...)
		default:
			return nil, p.unknown(c, "fieldset "+fs.Name)
		}
	}
	if len(fs.Fields) == 0 {
		return nil, p.errorf(it, "fieldset %s has no fields", fs.Name)
	}
	return fs, nil
}

func (p *parser) importField(it *item) (*ImportedField, error) {
	w := it.words
	if len(w) != 5 || w[1] != "field" || w[3] != "as" {
		return nil, p.errorf(it, "import field REF.FIELD as NAME expected")
	}
	ref, field, ok := strings.Cut(w[2], ".")
	if !ok || ref == "" || field == "" {
		return nil, p.errorf(it, "import field REF.FIELD as NAME expected")
	}
	if it.hasBlock && len(it.block) > 0 {
		return nil, p.unknown(it.block[0], "import field")
	}
	return &ImportedField{Reference: ref, Field: field, Name: w[4], Line: it.line}, nil
}

func (p *parser) documentSummary(it *item) (*DocumentSummary, error) {
	name, inherits, err := p.blockHeader(it, false)
	if err != nil {
		return nil, err
	}
	ds := &DocumentSummary{Name: name, Line: it.line, Inherits: inherits}
	for _, c := range it.block {
		switch c.keyword() {
		case "from-disk":
			ds.FromDisk = true
		case "omit-summary-features":
			ds.OmitSummaryFeatures = true
		case "summary":
			sf, err := p.summaryField(c)
			if err != nil {
				return nil, err
			}
			ds.Fields = append(ds.Fields, sf)
		default:
			return nil, p.unknown(c, "document-summary "+name)
		}
	}
	return ds, nil
}

// summaryField reads summary NAME [type TYPE] [{ source: a; dynamic }].
func (p *parser) summaryField(it *item) (*SummaryField, error) {
	w := it.words
	if len(w) < 2 || !validName(w[1]) {
		return nil, p.errorf(it, "summary NAME expected")
	}
	sf := &SummaryField{Name: w[1]}
	if len(w) > 2 {
		if w[2] != "type" || len(w) < 4 {
			return nil, p.errorf(it, "summary NAME type TYPE expected")
		}
		t, err := ParseType(strings.Join(w[3:], " "))
		if err != nil {
			return nil, p.errorf(it, "%v", err)
		}
		sf.Type = t
	}
	if it.hasValue {
		sf.Settings = append(sf.Settings, it.value)
	}
	for _, c := range it.block {
		switch c.keyword() {
		case "source":
			if !c.hasValue {
				return nil, p.errorf(c, "source: FIELD expected")
			}
			sf.Sources = append(sf.Sources, splitNames([]string{c.value})...)
		case "dynamic", "matched-elements-only", "full", "static", "bolding", "tokens", "select-elements-by",
			"attribute", "attribute-combiner", "copy", "documentid", "geopos", "positions", "distance",
			"summary-features", "rank-features", "tokens-ascii", "matchfeatures":
			s := strings.Join(c.words, " ")
			if c.hasValue {
				s += ": " + c.value
			}
			sf.Settings = append(sf.Settings, s)
		default:
			return nil, p.unknown(c, "summary "+sf.Name)
		}
	}
	return sf, nil
}
