package vespa

import "net/http"

// WithBaseTransport replaces the client's *http.Transport by rt, for tests
// that need a fake network (such as waits under testing/synctest).
func WithBaseTransport(rt http.RoundTripper) Option { return baseTransportOption{rt} }

// ClientDeadline exposes clientDeadline.
var ClientDeadline = clientDeadline

// ReadyPoll exposes the poll interval of WaitUntilReady.
const ReadyPoll = readyPoll
