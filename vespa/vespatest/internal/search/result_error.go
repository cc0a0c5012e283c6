package search

// Error codes of root.errors[].code, as com.yahoo.container.protect.Error defines them.
const (
	CodeNoBackends          = 0
	CodeNullQuery           = 1
	CodeIllegalQuery        = 3
	CodeInvalidQueryParam   = 4
	CodeUnspecified         = 5
	CodeTimeout             = 12
	CodeBadRequest          = 17  // a web-service code: HTTP 400
	CodeNotImplemented      = 501 // a web-service code: Vespa answers it with HTTP 501
	summaryIllegalQuery     = "Illegal query"
	summaryInvalidParameter = "Invalid query parameter"
	summaryUnspecified      = "Unspecified error"
	summaryTimeout          = "Timed out"
	summaryBadRequest       = "Bad request."
	summaryNotImplemented   = "Not implemented"
)

// resultError is one entry of root.errors.
type resultError struct {
	code    int
	summary string
	source  string // written when not empty
	message string // written when not empty
}

func illegalQuery(msg string) resultError {
	return resultError{code: CodeIllegalQuery, summary: summaryIllegalQuery, message: msg}
}

func invalidParameter(msg string) resultError {
	return resultError{code: CodeInvalidQueryParam, summary: summaryInvalidParameter, message: msg}
}

func notImplemented(msg string) resultError {
	return resultError{code: CodeNotImplemented, summary: summaryNotImplemented, message: msg}
}

// webServiceStatus maps the error codes that carry an HTTP status: raw statuses and 14..19.
func webServiceStatus(code int) (int, bool) {
	switch code {
	case 200, 301, 302, 307, 400, 401, 403, 404, 405, 406, 408, 500, 501, 503, 505, 502, 504, 428, 429, 431, 511:
		return code, true
	case 14:
		return 401, true
	case 15:
		return 403, true
	case 16:
		return 404, true
	case 17:
		return 400, true
	case 18:
		return 500, true
	case 19:
		return 507, true
	}
	return 0, false
}

// httpStatus chooses the HTTP status of a result as Vespa's VespaHeaders.getStatus does: 200
// without errors; with hits, 200 unless an error carries a web-service code; without hits, the
// first error decides (web-service codes, then 0→503, 12→504, 10→503, 3→400, 4→400, else 500).
func httpStatus(errs []resultError, hasHits bool) int {
	if len(errs) == 0 {
		return 200
	}
	for _, e := range errs {
		if s, ok := webServiceStatus(e.code); ok {
			return s
		}
	}
	if hasHits {
		return 200
	}
	switch errs[0].code {
	case CodeNoBackends, 10:
		return 503
	case CodeTimeout:
		return 504
	case CodeIllegalQuery, CodeInvalidQueryParam:
		return 400
	}
	return 500
}
