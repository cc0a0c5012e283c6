package vespa

import (
	"encoding/json"
	"errors"

	"github.com/govespa/govespa/vespa/schema"
)

// WithSchema checks every put and update against app's schemas before it
// is sent ([Client.Put], [Client.Update], [Client.UpdateWhere]; not
// [Client.SendOnce], whose caller checks), and the
// document type of every [Client.Remove]: an unknown document type or
// field, a value Vespa would not read as its field's type (a string for an
// int, an integer out of range, a tensor of other dimensions or with
// another number of dense cells), an update operation the field's type does not take
// (an increment on a string). Such an operation returns an [*EncodeError]
// that matches [ErrInvalidDocument] and [schema.ErrInvalidDocument], names
// the document ID and unwraps to a [*schema.CheckError] naming the field,
// what it wants and what it was given; nothing is sent.
//
// The check is no stricter than Vespa's document JSON reader (see
// [schema.Application.CheckPut]): what it lets through, Vespa may still
// refuse, and what it refuses, Vespa would refuse or would store as another
// value than the one given (an int8 tensor cell of 200, a bool "yes"). It
// reads a put's encoded JSON once, in place (an update's body is first
// split into its members to find "fields"): a few microseconds for a
// document with a 384-float tensor, well under the cost of the request. A feed.Feeder built on the client
// checks the same way unless its own Config.Schema says otherwise (see
// [Client.Schema]). Gets are not checked. Load app with [schema.ParseDir]
// from the application package that is deployed. A nil app is an error.
// Default: no check.
func WithSchema(app *schema.Application) Option { return schemaOption{app} }

// Schema returns the application given to [WithSchema], or nil.
func (c *Client) Schema() *schema.Application { return c.cfg().schema }

type schemaOption struct{ app *schema.Application }

func (o schemaOption) apply(c *config) error {
	if o.app == nil {
		return errors.New("vespa: WithSchema: nil *schema.Application")
	}
	c.schema = o.app
	return nil
}
func (o schemaOption) String() string { return "WithSchema(*schema.Application)" }

// checkSchema checks the body of an operation of kind on id against the
// client's schemas (WithSchema), before anything is sent: put bodies are
// putBody's, {"fields":<fields>}; update bodies are the update JSON, whose
// "fields" member is checked. A refusal is an *EncodeError.
func (c *Client) checkSchema(kind OperationKind, id DocumentID, body []byte) error {
	app := c.cfg().schema
	if app == nil {
		return nil
	}
	var err error
	switch kind {
	case OpPut:
		err = app.CheckPut(id.DocType, putFields(body))
	case OpUpdate:
		err = checkUpdateBody(app, id.DocType, body)
	case OpRemove:
		err = app.CheckPut(id.DocType, nil) // the document type only
	default:
		return nil
	}
	if err != nil {
		return &EncodeError{Op: kind.String(), ID: id.String(), Err: err}
	}
	return nil
}

// checkUpdateWhere checks the body of an update of every document of
// docType that a selection matches (UpdateWhere).
func (c *Client) checkUpdateWhere(docType string, body []byte) error {
	app := c.cfg().schema
	if app == nil {
		return nil
	}
	if err := checkUpdateBody(app, docType, body); err != nil {
		return &EncodeError{Op: "update-where", Err: err}
	}
	return nil
}

// putFields returns the fields object of putBody's {"fields":<fields>}.
func putFields(body []byte) []byte {
	if len(body) < len(putPrefix)+1 {
		return nil
	}
	return body[len(putPrefix) : len(body)-1]
}

// checkUpdateBody checks the "fields" member of the update body against
// docType. A body that is not a JSON object is left to Vespa, which answers
// 400 for it.
func checkUpdateBody(app *schema.Application, docType string, body []byte) error {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return app.CheckPut(docType, nil)
	}
	return app.CheckUpdate(docType, members["fields"])
}
