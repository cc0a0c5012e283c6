package wire

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// RoundTrip sends req once through hc and returns the answer as
// hc.Do(req) would under [NoRedirects]: a 3xx is returned as it is (never
// followed), a failure is a [*url.Error] (so that retry classification and
// [HideURL] see what net/http's client gives), and a nil body is
// http.NoBody.
//
// When hc has no cookie jar and no Timeout, which is how the SDK's own
// clients are made, the request goes straight to hc's transport, without
// the machinery *http.Client keeps for redirects (a copy of the headers
// and of the URL per request): a RoundTripper never follows a redirect, so
// nothing but the 3xx itself can come back. Otherwise it is hc.Do(req), and
// hc's CheckRedirect must refuse redirects as NoRedirects does. The
// request's deadline is its context's.
func RoundTrip(hc *http.Client, req *http.Request) (*http.Response, error) {
	if !Direct(hc) {
		return hc.Do(req) //nolint:gosec // G704: the caller's own request, as hc.Do always is
	}
	rt := hc.Transport
	resp, err := rt.RoundTrip(req)
	if err != nil {
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: RedactURL(req.URL.String()), Err: err}
	}
	if resp == nil {
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: RedactURL(req.URL.String()),
			Err: fmt.Errorf("http: RoundTripper implementation (%T) returned a nil *Response with a nil error", rt)}
	}
	if resp.Body == nil {
		if resp.ContentLength > 0 && req.Method != http.MethodHead {
			return nil, &url.Error{Op: urlErrorOp(req.Method), URL: RedactURL(req.URL.String()),
				Err: errors.New("http: RoundTripper implementation returned a nil *Response.Body with a non-zero ContentLength")}
		}
		resp.Body = http.NoBody
	}
	return resp, nil
}

// Direct reports whether [RoundTrip] hands a request through hc straight
// to hc's transport, so that nothing but the transport sees it: hc.Do, by
// contrast, adds a cookie jar's cookies to the request's own headers.
func Direct(hc *http.Client) bool {
	return hc.Transport != nil && hc.Jar == nil && hc.Timeout == 0
}

// urlErrorOp is the Op of net/http's *url.Error for method: "Get",
// "Post", ...
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	if lower := strings.ToLower(method); method != lower {
		return method[:1] + lower[1:]
	}
	return method
}
