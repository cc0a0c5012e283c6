package gen

import "testing"

// TestGoName_Cases checks how Vespa names become Go identifiers.
func TestGoName_Cases(t *testing.T) {
	for in, want := range map[string]string{
		"title": "Title", "user_id": "UserID", "chart_ids": "ChartIDs", "near-dup": "NearDup",
		"type": "Type", "func": "Func", "myField": "MyField", "my_field": "MyField", "_x": "X",
		"url": "URL", "x2": "X2", "2x": "X2x", "a__b": "AB", "html_body_text": "HTMLBodyText",
		"år": "År", "s": "S", "is": "Is",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}
