package vespatest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestTensorHex_onlyWhereVespaRendersIt: format.tensors=hex renders dense
// parts as a hex string of the cells' bits (vespajlib JsonFormat.asHexString:
// upper case, 8 digits a float, 16 a double) on a single GET and in a JSONL
// visit (StreamingJsonLinesResponse passes the whole EncodeOptions), but not
// in a JSON visit, whose JsonResponse.writeDocumentValue passes only
// shortForm and directValues ("This does not actually allow for hex format
// rendering"): there hex is short and hex-value short-value.
func TestTensorHex_onlyWhereVespaRendersIt(t *testing.T) {
	s := newMusicServer(t, "v", "tensor<float>(x[3])", "d", "tensor(x[2])", "m", "tensor<float>(cat{},x[2])")
	if err := s.PutDocument("id:ns:music::a", json.RawMessage(`{"v":[1,2,3],"d":[1,-2],"m":{"blocks":{"a":[1,2]}}}`)); err != nil {
		t.Fatal(err)
	}
	const (
		hexV = `"3F8000004000000040400000"`
		hexD = `"3FF0000000000000C000000000000000"`
		hexM = `{"a":"3F80000040000000"}`
	)
	for _, c := range []struct {
		name, path string
		header     []string
		want       []string
	}{
		{"get, hex", "/document/v1/ns/music/docid/a?format.tensors=hex", nil, []string{
			`"v":{"type":"tensor<float>(x[3])","values":` + hexV + `}`,
			`"d":{"type":"tensor(x[2])","values":` + hexD + `}`,
			`"m":{"type":"tensor<float>(cat{},x[2])","blocks":` + hexM + `}`}},
		{"get, hex-value", "/document/v1/ns/music/docid/a?format.tensors=hex-value", nil, []string{
			`"v":` + hexV, `"d":` + hexD, `"m":` + hexM}},
		{"JSON visit, hex is short", "/document/v1/ns/music/docid/?format.tensors=hex", nil, []string{
			`"v":{"type":"tensor<float>(x[3])","values":[1,2,3]}`, `"m":{"type":"tensor<float>(cat{},x[2])","blocks":{"a":[1,2]}}`}},
		{"JSON visit, hex-value is short-value", "/document/v1/ns/music/docid/?format.tensors=hex-value", nil, []string{
			`"v":[1,2,3]`, `"d":[1,-2]`}},
		{"JSONL visit keeps hex", "/document/v1/ns/music/docid/?format.tensors=hex-value&stream=true", []string{"Accept", "application/jsonl"}, []string{
			`"v":` + hexV, `"m":` + hexM}},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, _ := get(t, s, c.path, c.header...)
			if status != http.StatusOK {
				t.Fatalf("%d %s", status, body)
			}
			for _, w := range c.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("%s\nlacks %s", body, w)
				}
			}
		})
	}
}
