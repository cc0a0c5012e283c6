package vespa

import "net/http"

// NewFeedHTTPClient is [Client.NewHTTPClient] for one connection of a
// feed.Feeder, which keeps many operations in flight on each: under the
// default [HTTPAuto] it speaks HTTP/2 (govespa's batching transport unless
// [WithHTTP2Transport] chose net/http's),
// as Vespa's CLI and Java feed client do — prior-knowledge h2c on http://
// and ALPN on https:// (a TLS server that does not offer h2 is then an
// error). Over HTTP/1.1 every request in flight needs a TCP connection of its
// own, so a feeder built on an http:// endpoint would otherwise open about a
// hundred of them.
//
// An explicit [WithHTTPVersion]([HTTP1]) or ([HTTP2]), a proxy named by the
// environment for the endpoint (h2c cannot pass an HTTP/1.1 proxy) or a
// replaced transport keeps the client's own choice, as NewHTTPClient does.
// The sync client's default stays HTTPAuto, HTTP/1.1 on http://: one
// operation at a time per goroutine needs no multiplexing, and HTTP/1.1
// passes every proxy and load balancer.
func (c *Client) NewFeedHTTPClient() *http.Client {
	cfg := c.cfg()
	if cfg.httpVersion != HTTPAuto || cfg.baseTransport != nil || proxied(c.endpoint) {
		return c.NewHTTPClient()
	}
	h2 := *cfg
	h2.httpVersion = HTTP2
	return c.newHTTPClientFor(&h2)
}
