package vespa

import "errors"

// ErrIgnoredOperation is matched (errors.Is) by the error of a mass
// operation ([Client.RemoveWhere], [Client.UpdateWhere]) whose page Vespa
// answered 2xx with X-Vespa-Ignored-Operation: true, so that documents that
// were not processed are not counted as done. A single operation that Vespa
// ignored is no error: see [Result.IgnoredOperation].
var ErrIgnoredOperation = errors.New("the operation was ignored (X-Vespa-Ignored-Operation: true): it matched no content cluster")

// ignoredPageError returns the error of a mass-operation page that Vespa
// answered as ignored, or nil.
func ignoredPageError(op, path string, p *visitPage) error {
	if p == nil || !p.OK() || !p.IgnoredOperation {
		return nil
	}
	return &Error{Op: op, Path: path, Status: p.Status, Message: p.Message, Err: ErrIgnoredOperation}
}
