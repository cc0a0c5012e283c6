package ctlplane

import (
	"strings"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	r, err := DecodeJSON[MessageReply]("cloud", "delete", []byte(`{"message":"gone","other":1}`))
	if err != nil || r.Message != "gone" {
		t.Errorf("DecodeJSON = %+v, %v", r, err)
	}
	for _, tc := range []struct{ pkg, op, want string }{
		{"cloud", "delete", "cloud: delete: decoding reply: "},
		{"deploy", "deploy", "deploy: decoding reply: "},
	} {
		if _, err := DecodeJSON[MessageReply](tc.pkg, tc.op, []byte(`<html>`)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("DecodeJSON(%s, %s) of HTML: %v, want an error starting %q", tc.pkg, tc.op, err, tc.want)
		}
	}
}
