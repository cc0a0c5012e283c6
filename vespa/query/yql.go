package query

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/query/grouping"
)

// Builder builds a YQL select statement from typed parts. Start one with
// [Select], add parts with its methods and render it with [Builder.YQL]:
//
//	yql, err := query.Select("title", "artist").
//		From("music").
//		Where(query.And(query.Contains("title", userText), query.Greater("year", 2000))).
//		OrderBy(query.Desc("year")).
//		Limit(10).
//		YQL()
//
// A Builder is an immutable value: every method returns a modified copy and
// leaves the receiver untouched, so a partly built statement may be shared
// and extended by several goroutines. Errors (a bad field name, an
// unsupported value) are reported by YQL, never by a panic.
type Builder struct {
	fields   []string
	sources  []string
	where    *Condition
	order    []Order
	limit    int // -1: not set
	offset   int // -1: not set
	timeout  time.Duration
	grouping []string
	err      error
}

// Order is one sort key of an order by clause; make one with [Asc] or [Desc].
type Order struct {
	field string
	desc  bool
}

// Asc sorts by field, ascending.
func Asc(field string) Order { return Order{field: field} }

// Desc sorts by field, descending.
func Desc(field string) Order { return Order{field: field, desc: true} }

// Select starts a statement selecting the given summary fields; with none it
// selects every field (select *).
func Select(fields ...string) Builder {
	return Builder{fields: append([]string(nil), fields...), limit: -1, offset: -1}
}

// From sets the sources (schemas or content clusters) to search; with none
// (the default) it searches all of them: from sources *.
func (b Builder) From(sources ...string) Builder {
	b.sources = append([]string(nil), sources...)
	return b
}

// Where sets the where clause; without one the statement says where true.
func (b Builder) Where(c Condition) Builder {
	b.where = &c
	return b
}

// OrderBy sets the sort order, replacing any earlier one.
func (b Builder) OrderBy(keys ...Order) Builder {
	b.order = append([]Order(nil), keys...)
	return b
}

// Limit sets the index one past the last hit to return (limit n); with
// [Builder.Offset] it selects hits offset..n-1. A negative n is an error.
// A statement with a limit or an offset overrides [Request.Hits] and
// [Request.Offset] (see there).
func (b Builder) Limit(n int) Builder {
	if n < 0 {
		b.err = fmt.Errorf("%w: negative limit %d", ErrInvalidYQL, n)
	}
	b.limit = n
	return b
}

// Offset sets the number of hits to skip (offset n). A negative n is an
// error.
func (b Builder) Offset(n int) Builder {
	if n < 0 {
		b.err = fmt.Errorf("%w: negative offset %d", ErrInvalidYQL, n)
	}
	b.offset = n
	return b
}

// Timeout sets the statement's timeout (timeout n, in milliseconds, rounded
// up). Zero leaves it out; a negative d is an error.
func (b Builder) Timeout(d time.Duration) Builder {
	if d < 0 {
		b.err = fmt.Errorf("%w: negative timeout %v", ErrInvalidYQL, d)
	}
	b.timeout = d
	return b
}

// Grouping appends a grouping expression, written in Vespa's grouping
// language, as a pipe step: | all(group(customer) each(output(sum(price)))).
// The expression is not escaped: it must be text of the program, not user
// input. It must start with all( or each( and its brackets must balance,
// which is how Vespa's lexer delimits it.
func (b Builder) Grouping(expr string) Builder {
	b.grouping = append(append([]string(nil), b.grouping...), expr)
	return b
}

// GroupingOf appends a grouping statement made with package grouping as a
// pipe step: | all(...). Unlike [Builder.Grouping], every name in it is
// validated and every string escaped, so it may hold user input (a label,
// a bucket bound). An invalid statement is reported by [Builder.YQL].
func (b Builder) GroupingOf(g grouping.Op) Builder {
	text, err := g.Text()
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("%w: %w", ErrInvalidYQL, err)
		}
		return b
	}
	return b.Grouping(text)
}

// YQL renders the statement, or returns an error wrapping [ErrInvalidYQL]
// that names the offending part.
func (b Builder) YQL() (string, error) {
	if b.err != nil {
		return "", b.err
	}
	var s strings.Builder
	s.Grow(64)
	s.WriteString("select ")
	if len(b.fields) == 0 {
		s.WriteByte('*')
	}
	if err := writeNames(&s, "select", b.fields); err != nil {
		return "", err
	}
	s.WriteString(" from ")
	switch {
	case len(b.sources) == 0:
		s.WriteString("sources *")
	case len(b.sources) == 1 && !strings.EqualFold(b.sources[0], "sources"):
		if err := writeNames(&s, "from", b.sources); err != nil {
			return "", err
		}
	default:
		s.WriteString("sources ")
		if err := writeNames(&s, "from", b.sources); err != nil {
			return "", err
		}
	}
	s.WriteString(" where ")
	if b.where == nil {
		s.WriteString("true")
	} else if err := b.where.render(&s); err != nil {
		return "", fmt.Errorf("where: %w", err)
	}
	if len(b.order) > 0 {
		s.WriteString(" order by ")
		for i, o := range b.order {
			if i > 0 {
				s.WriteString(", ")
			}
			if err := checkName(o.field); err != nil {
				return "", fmt.Errorf("order by: %w", err)
			}
			s.WriteString(o.field)
			if o.desc {
				s.WriteString(" desc")
			} else {
				s.WriteString(" asc")
			}
		}
	}
	if b.limit >= 0 {
		s.WriteString(" limit ")
		s.WriteString(strconv.Itoa(b.limit))
	}
	if b.offset >= 0 {
		s.WriteString(" offset ")
		s.WriteString(strconv.Itoa(b.offset))
	}
	if b.timeout > 0 {
		s.WriteString(" timeout ")
		s.WriteString(strconv.FormatInt(int64((b.timeout+time.Millisecond-1)/time.Millisecond), 10))
	}
	for _, g := range b.grouping {
		if err := checkGrouping(g); err != nil {
			return "", err
		}
		s.WriteString(" | ")
		s.WriteString(strings.TrimSpace(g))
	}
	return s.String(), nil
}

// checkGrouping checks that expr is one grouping token as Vespa's lexer
// reads it (VESPA_GROUPING in yqlplus.g4): all or each, a bracketed argument
// whose (, [ and < balance with ), ] and >, then optionally as(...) and
// where(...), bracketed the same way. This keeps a grouping expression from
// swallowing or appending other parts of the statement.
func checkGrouping(expr string) error {
	e := strings.TrimSpace(expr)
	rest, ok := strings.CutPrefix(e, "all")
	if !ok {
		rest, ok = strings.CutPrefix(e, "each")
	}
	if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), "(") {
		return fmt.Errorf("%w: grouping %q must start with all( or each(", ErrInvalidYQL, expr)
	}
	rest, err := groupingArg(expr, rest)
	if err != nil {
		return err
	}
	for _, kw := range []string{"as", "where"} {
		t := strings.TrimLeft(rest, " \t\r\n")
		if after, ok := strings.CutPrefix(t, kw); ok && strings.HasPrefix(strings.TrimLeft(after, " \t\r\n"), "(") {
			if rest, err = groupingArg(expr, after); err != nil {
				return err
			}
		}
	}
	if strings.TrimSpace(rest) != "" {
		return fmt.Errorf("%w: grouping %q has text after its closing bracket", ErrInvalidYQL, expr)
	}
	return nil
}

// groupingArg consumes one bracketed argument at the start of s (after
// spaces) and returns what follows it.
func groupingArg(expr, s string) (string, error) {
	s = strings.TrimLeft(s, " \t\r\n")
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
			if depth < 0 {
				return "", fmt.Errorf("%w: grouping %q has unbalanced brackets", ErrInvalidYQL, expr)
			}
			if depth == 0 {
				return s[i+1:], nil
			}
		}
	}
	return "", fmt.Errorf("%w: grouping %q has unbalanced brackets", ErrInvalidYQL, expr)
}

// writeNames writes names separated by ", ", each checked by checkName; a
// bad one's error starts with clause ("select", "from").
func writeNames(b *strings.Builder, clause string, names []string) error {
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := checkName(n); err != nil {
			return fmt.Errorf("%s: %w", clause, err)
		}
		b.WriteString(n)
	}
	return nil
}
