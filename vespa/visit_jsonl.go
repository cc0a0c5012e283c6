package vespa

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// This file reads a streamed visit page in JSON Lines, which Vespa sends
// for stream=true when the request accepts application/jsonl
// (StreamingJsonLinesResponse in Vespa's document/v1 handler): one object
// per line,
//
//	{"put":"<id>","fields":{...}}
//	{"remove":"<id>"}
//	{"continuation":{"token":"<token>","percentFinished":40.0}}   after buckets; the last line of every answer
//	{"message":{"text":"...","severity":"error"}}
//	{"sessionStats":{"documentCount":n}}
//	{"sessionTrace":{...}}
//
// The last continuation has no token when the slice is finished.

// visitAccept is the Accept header of visit pages: JSON Lines when Vespa
// streams (stream=true), JSON otherwise (Vespa looks at Accept only for
// streamed visits).
const visitAccept = "application/jsonl, application/json;q=0.9"

// isJSONLines reports whether h says the body is JSON Lines.
func isJSONLines(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(h.Get("Content-Type"))), "application/jsonl")
}

// visitLine is one line of a JSON Lines page.
type visitLine struct {
	Put          string          `json:"put"`
	Remove       string          `json:"remove"`
	Fields       json.RawMessage `json:"fields"`
	Continuation *struct {
		Token           string   `json:"token"`
		PercentFinished *float64 `json:"percentFinished"`
	} `json:"continuation"`
	Message *struct {
		Text     string `json:"text"`
		Severity string `json:"severity"`
	} `json:"message"`
	SessionStats *struct {
		DocumentCount int64 `json:"documentCount"`
	} `json:"sessionStats"`
}

// decodeVisitLines reads a 2xx JSON Lines page into p. An answer that does
// not end with a continuation line was cut short and is an error, as is a
// line that is not a JSON object. A page that reports a message (a visitor
// failure, or a timeout before a bucket was finished) has written the
// documents of buckets it did not finish, which come again from its
// continuation: it becomes a failed page with status 500, as Vespa answers
// such a visit when it does not stream, so that it is fetched again whole.
func decodeVisitLines(p *visitPage, body []byte) error {
	malformed := func(line int, why string) error {
		p.BodyExcerpt = wire.Excerpt(body)
		return wire.Malformed("visit", "", p.Path, p.Status, body, fmt.Sprintf("not a JSON Lines visit page (line %d: %s)", line, why), errMalformedPage)
	}
	var (
		lastIsContinuation bool
		messages           []string
	)
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var vl visitLine
		if line[0] != '{' {
			return malformed(n, "not a JSON object")
		}
		if err := json.Unmarshal(line, &vl); err != nil {
			return malformed(n, err.Error())
		}
		lastIsContinuation = false
		switch {
		case vl.Put != "":
			p.docs = append(p.docs, Document{ID: vl.Put, Fields: vl.Fields})
		case vl.Remove != "":
			p.docs = append(p.docs, Document{ID: vl.Remove, Removed: true})
		case vl.Continuation != nil:
			lastIsContinuation = true
			p.next = vl.Continuation.Token
			if pf := vl.Continuation.PercentFinished; pf != nil {
				p.percent, p.hasPercent = *pf, true
			}
		case vl.Message != nil:
			messages = append(messages, vl.Message.Text)
		case vl.SessionStats != nil:
			p.count = vl.SessionStats.DocumentCount
		}
	}
	if err := sc.Err(); err != nil {
		return malformed(n, err.Error())
	}
	if !lastIsContinuation {
		return malformed(n, "the answer ends without a continuation line (cut short?)")
	}
	if len(messages) > 0 {
		p.Status = http.StatusInternalServerError
		p.Message = "streamed visit failed: " + strings.Join(messages, "; ")
		p.docs, p.next = nil, ""
	}
	return nil
}
