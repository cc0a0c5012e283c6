package schema

import (
	"strings"
)

// item is one statement of a .sd file, before it is interpreted: a header
// of words ("field", "title", "type", "string"), then a value after a colon
// ("summary | index"), a block of items, or raw block text (an expression
// or an indexing script between braces). The reader knows only this shape;
// parse.go gives the items their meaning and refuses the ones it does not
// know.
type item struct {
	line     int
	words    []string
	hasValue bool
	value    string
	hasBlock bool
	block    []*item
	raw      string // the text of a raw block, for rawBlocks keywords
}

// keyword is the item's first word, "" for an empty header.
func (it *item) keyword() string {
	if len(it.words) == 0 {
		return ""
	}
	return it.words[0]
}

// rawBlocks are the keywords whose block is text, not items: ranking
// expressions, indexing scripts and feature lists may hold braces and
// colons of their own.
var rawBlocks = map[string]bool{
	"expression":       true,
	"indexing":         true,
	"summary-features": true,
	"match-features":   true,
	"rank-features":    true,
}

// reader turns the text of a .sd file into items.
type reader struct {
	file string
	src  string
	pos  int
	line int
}

// readItems reads the whole file: the top-level items.
func readItems(file, src string) ([]*item, error) {
	r := &reader{file: file, src: src, line: 1}
	items, err := r.block(false)
	if err != nil {
		return nil, err
	}
	return items, nil
}

func (r *reader) errorf(line int, construct, format string, args ...any) error {
	return newError(r.file, line, construct, format, args...)
}

// skipSpace skips blanks, newlines, ';' and comments.
func (r *reader) skipSpace() {
	for r.pos < len(r.src) {
		switch c := r.src[r.pos]; c {
		case '\n':
			r.line++
			r.pos++
		case ' ', '\t', '\r', ';', '\f':
			r.pos++
		case '#':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

// block reads items until the '}' that closes the block (inner) or the end
// of the file (top level).
func (r *reader) block(inner bool) ([]*item, error) {
	var items []*item
	start := r.line
	for {
		r.skipSpace()
		if r.pos >= len(r.src) {
			if inner {
				return nil, r.errorf(start, "{", "block is not closed: '}' expected before the end of the file")
			}
			return items, nil
		}
		if r.src[r.pos] == '}' {
			if !inner {
				return nil, r.errorf(r.line, "}", "'}' without a block to close")
			}
			r.pos++
			return items, nil
		}
		it, err := r.item()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
}

// item reads one item: its header, then a value, a block or nothing.
func (r *reader) item() (*item, error) {
	it := &item{line: r.line}
	var word strings.Builder
	depth := 0 // ( ) and < > nesting within a header word
	flush := func() {
		if word.Len() > 0 {
			it.words = append(it.words, word.String())
			word.Reset()
		}
	}
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch {
		case c == '"':
			s, err := r.quoted()
			if err != nil {
				return nil, err
			}
			word.WriteString(s)
			continue
		case c == '(' || c == '<' || c == '[':
			depth++
		case (c == ')' || c == '>' || c == ']') && depth > 0:
			depth--
		case depth > 0:
			if c == '\n' {
				r.line++
			}
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				r.pos++
				continue // "map<string, int>" is one word
			}
		case c == ' ' || c == '\t' || c == '\r':
			flush()
			r.pos++
			continue
		case c == '\n' || c == ';' || c == '}':
			flush()
			return r.finish(it)
		case c == '#':
			flush()
			r.skipSpace()
			return r.finish(it)
		case c == ':':
			flush()
			r.pos++
			it.hasValue = true
			it.value = r.value()
			if r.pos < len(r.src) && r.src[r.pos] == '{' && len(it.words) > 0 && it.words[0] == "indexing" {
				return nil, r.errorf(it.line, "indexing", "an indexing value and a block at once")
			}
			return r.finish(it)
		case c == '{':
			flush()
			r.pos++
			it.hasBlock = true
			if rawBlocks[it.keyword()] {
				raw, err := r.rawBlock(it.line)
				if err != nil {
					return nil, err
				}
				it.raw = raw
				return r.finish(it)
			}
			block, err := r.block(true)
			if err != nil {
				return nil, err
			}
			it.block = block
			return r.finish(it)
		}
		word.WriteByte(c)
		r.pos++
	}
	flush()
	if depth > 0 {
		return nil, r.errorf(it.line, strings.Join(it.words, " "), "unbalanced '(', '<' or '['")
	}
	return r.finish(it)
}

// finish checks an item that is complete.
func (r *reader) finish(it *item) (*item, error) {
	if len(it.words) == 0 {
		what := "':'"
		if it.hasBlock {
			what = "'{'"
		}
		return nil, r.errorf(it.line, strings.Trim(what, "'"), "%s without a keyword before it", what)
	}
	return it, nil
}

// quoted reads a "string" at r.pos and returns it with its quotes.
func (r *reader) quoted() (string, error) {
	start, line := r.pos, r.line
	r.pos++
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case '\\':
			r.pos += 2
			continue
		case '\n':
			return "", r.errorf(line, "\"", "string is not closed on its line")
		case '"':
			r.pos++
			return r.src[start:r.pos], nil
		}
		r.pos++
	}
	return "", r.errorf(line, "\"", "string is not closed")
}

// value reads the text after a colon up to the end of the line, or to a
// '}' that closes the enclosing block; braces within it (a tensor literal)
// must balance. The '}' stays for the block to read.
func (r *reader) value() string {
	start := r.pos
	depth := 0
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch c {
		case '"':
			if _, err := r.quoted(); err != nil {
				r.pos = len(r.src) // the caller sees the rest as the value
			}
			continue
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return strings.TrimSpace(r.src[start:r.pos])
			}
			depth--
		case '\n':
			if depth == 0 {
				return strings.TrimSpace(r.src[start:r.pos])
			}
			r.line++
		case '#':
			if depth == 0 {
				v := strings.TrimSpace(r.src[start:r.pos])
				for r.pos < len(r.src) && r.src[r.pos] != '\n' {
					r.pos++
				}
				return v
			}
		}
		r.pos++
	}
	return strings.TrimSpace(r.src[start:])
}

// rawBlock reads the text of a block whose '{' was just read, up to its
// balancing '}'.
func (r *reader) rawBlock(line int) (string, error) {
	start := r.pos
	depth := 0
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case '"':
			if _, err := r.quoted(); err != nil {
				return "", err
			}
			continue
		case '\n':
			r.line++
		case '#':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
			continue
		case '{':
			depth++
		case '}':
			if depth == 0 {
				text := r.src[start:r.pos]
				r.pos++
				return strings.TrimSpace(text), nil
			}
			depth--
		}
		r.pos++
	}
	return "", r.errorf(line, "{", "block is not closed: '}' expected before the end of the file")
}
