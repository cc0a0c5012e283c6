package vespa

// IsIdempotent reports whether sending the operation of kind with body (the
// request body: {"fields": ...} for a put or an update) and opts twice has
// the effect of sending it once: the rule by which a [Client] re-sends a
// write after a connection error that may have reached the server (see
// [OperationOptions.Resend]). It is exported so that the feeder (package
// feed) judges updates by the same rule.
func IsIdempotent(kind OperationKind, body []byte, opts OperationOptions) bool {
	return idempotent(kind, body, &opts)
}
