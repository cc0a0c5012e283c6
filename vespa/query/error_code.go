package query

import (
	"net/http"
	"strconv"
)

// ErrorCode is the code of an entry of a result's errors (root.errors[].code).
// The codes 0–19 are Vespa's own (com.yahoo.container.protect.Error); a
// searcher may also report an HTTP status as its code (a "web-service code",
// such as 406), which then becomes the response's status.
type ErrorCode int

// Vespa's error codes.
const (
	// CodeNoBackendsInService: no content node can serve the query (503).
	CodeNoBackendsInService ErrorCode = 0
	// CodeNullQuery: the request has neither yql nor query (500).
	CodeNullQuery ErrorCode = 1
	// CodeRequestTooLarge: the request is too large (500).
	CodeRequestTooLarge ErrorCode = 2
	// CodeIllegalQuery: the YQL does not parse, or hits/offset are out of
	// bounds (400).
	CodeIllegalQuery ErrorCode = 3
	// CodeInvalidQueryParameter: a parameter has an invalid value, or names
	// an unknown search chain (400).
	CodeInvalidQueryParameter ErrorCode = 4
	// CodeUnspecified: an unspecified error (500).
	CodeUnspecified ErrorCode = 5
	// CodeErrorInPlugin: a searcher failed (500).
	CodeErrorInPlugin ErrorCode = 6
	// CodeInvalidQueryTransformation: a searcher made an invalid query (500).
	CodeInvalidQueryTransformation ErrorCode = 7
	// CodeResultHasErrors: a content node reported an error (500, or 200
	// next to hits).
	CodeResultHasErrors ErrorCode = 8
	// CodeServerIsMisconfigured: the service is misconfigured (500).
	CodeServerIsMisconfigured ErrorCode = 9
	// CodeBackendCommunicationError: a content node could not be reached
	// (503).
	CodeBackendCommunicationError ErrorCode = 10
	// CodeNoAnswerWhenPingingNode: a content node did not answer a ping (500).
	CodeNoAnswerWhenPingingNode ErrorCode = 11
	// CodeTimeout: the query timed out (504).
	CodeTimeout ErrorCode = 12
	// CodeEmptyDocuments: document summaries were empty (500).
	CodeEmptyDocuments ErrorCode = 13
	// CodeUnauthorized: the client is not authenticated (401, even with hits).
	CodeUnauthorized ErrorCode = 14
	// CodeForbidden: the client may not run the query (403, even with hits).
	CodeForbidden ErrorCode = 15
	// CodeNotFound: the resource was not found (404, even with hits).
	CodeNotFound ErrorCode = 16
	// CodeBadRequest: a bad request (400, even with hits).
	CodeBadRequest ErrorCode = 17
	// CodeInternalServerError: an internal server error (500, even with hits).
	CodeInternalServerError ErrorCode = 18
	// CodeInsufficientStorage: insufficient storage (507, even with hits).
	CodeInsufficientStorage ErrorCode = 19
)

var codeNames = [...]string{
	"no backends in service",
	"null query",
	"request too large",
	"illegal query",
	"invalid query parameter",
	"unspecified",
	"error in plugin",
	"invalid query transformation",
	"result has errors",
	"server is misconfigured",
	"backend communication error",
	"no answer when pinging node",
	"timeout",
	"empty documents",
	"unauthorized",
	"forbidden",
	"not found",
	"bad request",
	"internal server error",
	"insufficient storage",
}

// String returns the code's name, such as "illegal query"; for a
// web-service code, "http <status> <text>"; otherwise "code <n>".
func (c ErrorCode) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	if isWebServiceStatus(int(c)) {
		return "http " + strconv.Itoa(int(c)) + " " + http.StatusText(int(c))
	}
	return "code " + strconv.Itoa(int(c))
}

// isWebServiceStatus reports whether code is one of the HTTP statuses a
// searcher may use as an error code (VespaHeaders.isHttpStatusCode).
func isWebServiceStatus(code int) bool {
	switch code {
	case 200, 301, 302, 307, 400, 401, 403, 404, 405, 406, 408, 428, 429, 431,
		500, 501, 502, 503, 504, 505, 511:
		return true
	}
	return false
}

// webServiceStatus returns the status a code forces even next to hits:
// itself for an HTTP status, 401/403/404/400/500/507 for codes 14–19.
func (c ErrorCode) webServiceStatus() (int, bool) {
	if isWebServiceStatus(int(c)) {
		return int(c), true
	}
	switch c {
	case CodeUnauthorized:
		return 401, true
	case CodeForbidden:
		return 403, true
	case CodeNotFound:
		return 404, true
	case CodeBadRequest:
		return 400, true
	case CodeInternalServerError:
		return 500, true
	case CodeInsufficientStorage:
		return 507, true
	}
	return 0, false
}

// HTTPStatus returns the HTTP status Vespa answers with when this is the
// first error of a result without hits (§2.4 of the wire digest): a
// web-service code's own status, 503 for codes 0 and 10, 504 for 12, 400 for
// 3 and 4, and 500 for every other code.
func (c ErrorCode) HTTPStatus() int {
	if s, ok := c.webServiceStatus(); ok {
		return s
	}
	switch c {
	case CodeNoBackendsInService, CodeBackendCommunicationError:
		return 503
	case CodeTimeout:
		return 504
	case CodeIllegalQuery, CodeInvalidQueryParameter:
		return 400
	}
	return 500
}

// statusFor returns the HTTP status Vespa gives a result with these errors,
// with or without real hits (VespaHeaders.getStatus): 200 without errors;
// with hits, 200 unless an error has a web-service code; without hits, the
// status of the first error whose code is mapped (see [ErrorCode.HTTPStatus]),
// or 500.
func statusFor(errs []ErrorMessage, hasHits bool) int {
	if len(errs) == 0 {
		return 200
	}
	if hasHits {
		for _, e := range errs {
			if s, ok := e.Code.webServiceStatus(); ok {
				return s
			}
		}
		return 200
	}
	// The first error with a mapped status decides; otherwise 500.
	for _, e := range errs {
		if s := e.Code.HTTPStatus(); s != 500 || e.Code == CodeInternalServerError || e.Code == 500 {
			return s
		}
	}
	return 500
}
