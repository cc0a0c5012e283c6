package docapi

import (
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// What the content node, not the container, refuses. Vespa's
// DocumentV1ApiHandler passes a get's fieldSet and a visit's selection
// through unchecked; the content node parses them against its document types
// and answers ILLEGAL_PARAMETERS, which the handler turns into a 500 — but
// only when the request reaches a content node, i.e. when the bucket has a
// replica (for a get) or the cluster has buckets (for a visit).

// fieldSetError is the content node's failure to parse a get's field set,
// "" when it parses: storage's simplemessagehandler.cpp getFieldSet over
// document's fieldsetrepo.cpp (FieldSetRepo::parse, parseSpecialValues,
// parseFieldCollection). Lenient mode knows every type and field.
func fieldSetError(app *schema.Application, name string) string {
	fail := func(msg string) string { return "Failed parsing fieldset " + name + " with : " + msg }
	if strings.HasPrefix(name, "[") {
		switch name {
		case "[id]", "[all]", "[none]", "[docid]", "[document]":
			return ""
		}
		return fail("The only special names (enclosed in '[]') allowed are id, all, none, docid, document; but not '" + name + "'.")
	}
	parts := strings.Split(name, ":")
	if len(parts) != 2 {
		return fail("The field set list must consist of a document type, then a colon (:), then a comma-separated list of field names")
	}
	if app.Lenient() {
		return ""
	}
	sch, ok := app.Schema(parts[0])
	if !ok {
		return fail("Unknown document type " + parts[0])
	}
	for f := range strings.SplitSeq(parts[1], ",") {
		if f == "" || f == "[document]" || f == "[all]" {
			continue
		}
		if _, ok := sch.Field(f); ok {
			continue
		}
		if _, ok := sch.Fieldsets[f]; ok {
			continue
		}
		// FieldNotFoundException, caught by name in getFieldSet.
		return "Field " + f + " in fieldset " + name + " not found in document"
	}
	return ""
}
