package models_test

import (
	"encoding/xml"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa/models"
)

var componentID = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]*$`)

// FuzzServicesComponent feeds arbitrary names, URLs and prefixes through the
// generator: the component id must always be valid, and the element must
// always be well-formed XML that gives the prefixes back unchanged.
func FuzzServicesComponent(f *testing.F) {
	f.Add("e5-small-v2", "https://huggingface.co/m.onnx", "query: ", "passage: ")
	f.Add("9 <&\"'> ", "https://x/?a=1&b=2", "<q>", "]]>")
	f.Add("", "", "\t\n", "é ü 日本")
	f.Fuzz(func(t *testing.T, name, url, qp, dp string) {
		c := models.ModelConfig{Name: name, ModelURL: url, TokenizerURL: url, QueryPrefix: qp, DocumentPrefix: dp}
		if id := c.Component(); !componentID.MatchString(id) {
			t.Fatalf("Component(%q) = %q, not a valid id", name, id)
		}
		var got struct {
			Transformer struct {
				URL string `xml:"url,attr"`
			} `xml:"transformer-model"`
			Query    string `xml:"prepend>query"`
			Document string `xml:"prepend>document"`
		}
		out := c.ServicesComponent()
		if err := xml.Unmarshal([]byte(out), &got); err != nil {
			if !validXMLText(name, url, qp, dp) {
				return // XML cannot carry these characters at all
			}
			t.Fatalf("not XML: %v\n%s", err, out)
		}
		if validXMLText(qp, dp, url) && (got.Query != qp || got.Document != dp || got.Transformer.URL != url) {
			t.Fatalf("round trip: got %+v from %q %q %q", got, url, qp, dp)
		}
	})
}

// validXMLText reports whether each string is valid UTF-8 made of runes that
// may appear in XML 1.0.
func validXMLText(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
		for _, r := range s {
			ok := r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
				r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
			if !ok {
				return false
			}
		}
	}
	return true
}
