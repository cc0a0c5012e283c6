package feed_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/feed"
)

// One bad element of a JSON array — on one line, as json.dump writes it, or
// with CRLF line ends — is one error naming its line and element, and every
// other operation is read. Before, the reader reported the bad element and
// then "expected an operation object, found ','", and dropped the rest of
// the line: on one line, every later operation of the file (issue 27 item 3).
func TestReader_BadArrayElementDropsNothingElse(t *testing.T) {
	good := func(n string) string { return `{"put":"id:ns:music::` + n + `","fields":{"a":1}}` }
	for name, c := range map[string]struct {
		in         string
		line, elem int
		reason     string
	}{
		"no fields, one line":      {"[" + good("1") + `,{"put":"id:ns:music::2"},` + good("3") + "," + good("4") + "]", 1, 2, `needs "fields"`},
		"unknown key, one line":    {"[" + good("1") + `,{"put":"id:ns:music::2","fields":{},"nosuch":1},` + good("3") + "," + good("4") + "]", 1, 2, `unknown key "nosuch"`},
		"bad JSON inside":          {"[" + good("1") + `,{"put":"id:ns:music::2","fields":{"a":tru}},` + good("3") + "," + good("4") + "]", 1, 2, "invalid JSON"},
		"CRLF, no fields":          {"[\r\n" + good("1") + ",\r\n" + `{"put":"id:ns:music::2"}` + ",\r\n" + good("3") + ",\r\n" + good("4") + "\r\n]\r\n", 3, 2, `needs "fields"`},
		"one line, bad last but 1": {"[" + good("1") + "," + good("3") + `,{"remove":"id:ns:music::2","x":1},` + good("4") + "]", 1, 3, `unknown key "x"`},
	} {
		t.Run(name, func(t *testing.T) {
			var ids []string
			var errs []error
			for op, err := range feed.NewReader(strings.NewReader(c.in), feed.ReaderConfig{Source: "f.json"}).All() {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				ids = append(ids, op.ID.String())
			}
			if want := []string{"id:ns:music::1", "id:ns:music::3", "id:ns:music::4"}; !slices.Equal(ids, want) {
				t.Errorf("read %v, want %v", ids, want)
			}
			if len(errs) != 1 {
				t.Fatalf("errors %v, want exactly one", errs)
			}
			var pe *feed.ParseError
			if !errors.As(errs[0], &pe) || pe.Line != c.line || pe.Element != c.elem || !strings.Contains(pe.Reason, c.reason) {
				t.Errorf("error %v (%+v), want line %d, element %d, %q", errs[0], pe, c.line, c.elem, c.reason)
			}
		})
	}
}

// A condition that is not UTF-8 is refused, as an ID that is not is: one
// error naming the operation, and the next one read (issue 27 item 13).
func TestReader_ConditionMustBeUTF8(t *testing.T) {
	in := "{\"put\":\"id:ns:music::1\",\"condition\":\"music.title==\\\"\xff\\\"\",\"fields\":{}}\n" +
		`{"put":"id:ns:music::2","condition":"music.year>1","fields":{}}` + "\n" +
		"{\"put\":\"id:ns:music::3\",\"condition\":\"music.title=='\xfe'\",\"fields\":{}}\n"
	var ids []string
	var errs []error
	for op, err := range feed.NewReader(strings.NewReader(in), feed.ReaderConfig{Source: "f.jsonl"}).All() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, op.ID.String())
	}
	// With an escape in the string (line 1) and without (line 3).
	if len(errs) != 2 {
		t.Fatalf("errors %v, want two", errs)
	}
	for i, line := range []int{1, 3} {
		var pe *feed.ParseError
		if !errors.As(errs[i], &pe) || pe.Line != line || !strings.Contains(pe.Reason, "UTF-8") {
			t.Errorf("error %v, want one for line %d saying UTF-8", errs[i], line)
		}
	}
	if !slices.Equal(ids, []string{"id:ns:music::2"}) {
		t.Errorf("read %v, want the second operation", ids)
	}
}
