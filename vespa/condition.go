package vespa

import (
	"errors"
	"net/http"
	"strings"
)

// ConditionFailure is why Vespa answered a conditional write (one with
// [OperationOptions].Condition) with 412, [ErrConditionNotMet]: see
// [WhyConditionFailed].
type ConditionFailure int

const (
	// NotConditionFailure: the error is not a 412 (nil, another status, a
	// transport failure).
	NotConditionFailure ConditionFailure = iota
	// ConditionFalse: the document exists and the condition does not match
	// it. Vespa's content node says "Condition did not match document".
	ConditionFalse
	// DocumentMissing: the document does not exist (or only its tombstone
	// does), and the write did not set Create, so the condition was not
	// evaluated. Vespa's content node says "Document does not exist".
	DocumentMissing
	// ConditionUnknown: a 412 whose message says neither, such as one from
	// a proxy or a Vespa that words it otherwise.
	ConditionUnknown
)

var conditionFailureNames = [...]string{
	NotConditionFailure: "not a condition failure", ConditionFalse: "condition false",
	DocumentMissing: "document missing", ConditionUnknown: "condition failed, reason unknown",
}

// String returns the failure's name, such as "document missing".
func (f ConditionFailure) String() string {
	return enumString(conditionFailureNames[:], f, "ConditionFailure")
}

// WhyConditionFailed tells the two reasons of an [ErrConditionNotMet] apart:
// the condition was false for an existing document, or there was no document
// to test. It reads the [*Error] in err's chain (a sync call's error, or a
// feeder outcome's), from the content node's message
// (TestAndSetHelper.cpp in Vespa's storage).
func WhyConditionFailed(err error) ConditionFailure {
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusPreconditionFailed {
		return NotConditionFailure
	}
	switch {
	case strings.Contains(e.Message, "Condition did not match document"):
		return ConditionFalse
	case strings.Contains(e.Message, "Document does not exist"):
		return DocumentMissing
	}
	return ConditionUnknown
}
