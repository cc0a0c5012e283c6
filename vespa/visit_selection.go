package vespa

import (
	"fmt"
	"strings"
)

// This file builds the document selection a visit or a mass operation
// sends, from the caller's parts, so that no part can change the meaning of
// another: the document type is checked to be a name, the namespace is
// quoted, and the caller's selection is checked to be one balanced
// expression before it is put in parentheses. Without these checks a
// selection such as `true) or (true` closes the parenthesis it is wrapped
// in and turns "(sel) and (id.namespace=='a')" into a visit of everything.

// checkDocTypeName returns an error unless name is a document type name as
// Vespa's schemas spell them: a letter or '_' and then letters, digits and
// '_'. field names the request field, for the message.
func checkDocTypeName(field, name string) error {
	for i, c := range name {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return fmt.Errorf("vespa: %s %q is not a document type name (letters, digits and '_', not starting with a digit)", field, name)
		}
	}
	return nil
}

// checkSelection returns an error unless sel is one balanced expression of
// Vespa's document selection language: every string literal is closed and
// every parenthesis outside them is matched, so that "(" + sel + ")" is one
// operand whatever sel holds. It does not check the grammar otherwise: that
// is Vespa's job, and a mistake there is a 400 that names it. field names
// the request field, for the message.
func checkSelection(field, sel string) error {
	if strings.TrimSpace(sel) == "" {
		return fmt.Errorf("vespa: %s is blank (leave it empty to select every document)", field)
	}
	depth := 0
	var quote byte // the quote of the string literal being read, or 0
	start := 0     // where that literal starts
	for i := 0; i < len(sel); i++ {
		c := sel[i]
		switch {
		case quote != 0 && c == '\\':
			i++ // the escaped byte, whatever it is, is part of the literal
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote, start = c, i
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return fmt.Errorf("vespa: %s: the ')' at byte %d closes a parenthesis the selection did not open", field, i)
			}
		case c == 0:
			return fmt.Errorf("vespa: %s: a NUL byte at byte %d", field, i)
		}
	}
	switch {
	case quote != 0:
		return fmt.Errorf("vespa: %s: the string literal at byte %d is not closed", field, start)
	case depth > 0:
		return fmt.Errorf("vespa: %s: %d '(' not closed", field, depth)
	}
	return nil
}

// quoteSelectionString returns s as a string literal of the selection
// language: in single quotes, with backslashes, single quotes and control
// bytes escaped.
func quoteSelectionString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// composeSelection joins the parts that restrict a visit at the root, each
// in parentheses, as Vespa joins a path's parts: (<selection>) and (<type>)
// and (id.namespace=='<ns>'). The parts must have been checked. A
// selection alone is sent as it is; no parts make no selection.
func composeSelection(selection, docType, namespace string) string {
	var parts []string
	if selection != "" {
		parts = append(parts, selection)
	}
	if docType != "" {
		parts = append(parts, docType)
	}
	if namespace != "" {
		parts = append(parts, "id.namespace=="+quoteSelectionString(namespace))
	}
	switch {
	case len(parts) == 0:
		return ""
	case len(parts) == 1 && selection != "":
		return selection
	}
	return "(" + strings.Join(parts, ") and (") + ")"
}
