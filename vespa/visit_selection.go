package vespa

import (
	"errors"
	"fmt"
	"strings"
)

// This file builds the document selection a visit or a mass operation
// sends, from the caller's parts, so that no part can change the meaning of
// another: the document type is checked to be a name, the namespace to
// hold no quote, backslash or control byte, and the caller's selection is checked to be one balanced
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
//
// Vespa reads a selection twice, and the two lexers differ on backslashes:
// the content nodes' (C++, lexer.ll) allow only the escapes \\ \t \n \f \r
// \xHH and the literal's own quote, while the container's (JavaCC,
// SelectParser.jj) takes the longest literal it can, so that in '...\\' it
// may read the last quote as escaped and go on. So a literal must use only
// the C++ escapes and must not end in an escaped backslash; then both read
// the same literals as this check does.
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
			n, err := escapeLen(sel[i+1:], quote)
			if err != nil {
				return fmt.Errorf("vespa: %s: the string literal at byte %d: %w", field, start, err)
			}
			i += n
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

// escapeLen returns how many bytes of rest, which follows a backslash in a
// literal quoted by quote, the escape takes, or an error for an escape that
// Vespa's two lexers do not read alike (see checkSelection).
func escapeLen(rest string, quote byte) (int, error) {
	if rest == "" {
		return 0, errors.New("it is not closed")
	}
	switch e := rest[0]; {
	case e == 'x' && len(rest) >= 3 && isHex(rest[1]) && isHex(rest[2]):
		return 3, nil
	case e == '\\' && len(rest) >= 2 && rest[1] == quote:
		return 0, errors.New(`it ends in an escaped backslash, which Vespa's parsers read differently (write \x5c)`)
	case e == '\\' || e == 't' || e == 'n' || e == 'f' || e == 'r' || e == quote:
		return 1, nil
	default:
		return 0, fmt.Errorf(`unknown escape \%c (Vespa knows \\ \t \n \f \r \xHH and the quote)`, e)
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// checkNamespace returns an error unless ns can be put in a selection
// string literal as it is: Vespa itself composes a path's namespace into
// its selection as id.namespace=='<ns>' without escaping, so a quote or a
// backslash in it would end the literal there; control bytes are refused
// too. field names the request field, for the message.
func checkNamespace(field, ns string) error {
	for i := 0; i < len(ns); i++ {
		if c := ns[i]; c == '\'' || c == '"' || c == '\\' || c < 0x20 || c == 0x7f {
			return fmt.Errorf("vespa: %s %q: a quote, a backslash or a control byte (at byte %d) cannot be in a namespace Vespa puts in a selection", field, ns, i)
		}
	}
	return nil
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
		parts = append(parts, "id.namespace=='"+namespace+"'") // checked by checkNamespace
	}
	switch {
	case len(parts) == 0:
		return ""
	case len(parts) == 1 && selection != "":
		return selection
	}
	return "(" + strings.Join(parts, ") and (") + ")"
}
