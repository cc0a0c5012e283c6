package vespa

import "unicode/utf8"

// decodeStringsFast decodes the reply most /document/v1 requests get — one
// JSON object whose members are plain strings, such as
// {"pathId":"/document/v1/ns/t/docid/x","id":"id:ns:t::x"} — without
// encoding/json, which costs a feeder about 5% of its CPU. It reports false,
// having maybe written part of rb, for anything else (an escape, a member
// that is not a string, a key other than pathId, id and message, or bytes
// that are not UTF-8); the caller then decodes body with encoding/json from
// scratch. Where it reports true, rb holds what json.Unmarshal would give
// (FuzzDecodeStringsFast checks that).
func decodeStringsFast(body []byte, rb *responseBody) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipSpace(body, i+1) == len(body)
	}
	var all string // body as one string, made once: the values are cut from it
	for {
		key, next, ok := plainString(body, i)
		if !ok {
			return false
		}
		i = skipSpace(body, next)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		start := skipSpace(body, i+1)
		val, next, ok := plainString(body, start)
		if !ok {
			return false
		}
		var dst *string
		switch string(key) { // exact keys only: encoding/json would also match other cases
		case "pathId":
			dst = &rb.PathID
		case "id":
			dst = &rb.ID
		case "message":
			dst = &rb.Message
		default:
			return false
		}
		if all == "" {
			all = string(body)
		}
		*dst = all[start+1 : start+1+len(val)]
		i = skipSpace(body, next)
		if i >= len(body) {
			return false
		}
		switch body[i] {
		case ',':
			i = skipSpace(body, i+1)
		case '}':
			return skipSpace(body, i+1) == len(body)
		default:
			return false
		}
	}
}

// plainString reads a JSON string at body[i] that has no escapes and no
// control characters and is valid UTF-8, returning its content and the
// index after its closing quote.
func plainString(body []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(body) || body[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(body); j++ {
		switch c := body[j]; {
		case c == '"':
			s = body[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
