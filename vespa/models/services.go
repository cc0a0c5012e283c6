package models

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// ServicesComponent returns the <component> element of type
// hugging-face-embedder for the <container> of services.xml, such as
//
//	<component id="e5_small_v2" type="hugging-face-embedder">
//	    <transformer-model model-id="e5-small-v2" url="https://…/model.onnx"/>
//	    <tokenizer-model url="https://…/tokenizer.json"/>
//	    <max-tokens>512</max-tokens>
//	    …
//	</component>
//
// Only the settings that are set are written; the others keep Vespa's
// defaults. Elements come in the order of Vespa's reference
// (https://docs.vespa.ai/en/reference/rag/embedding.html), attribute values and
// texts are XML-escaped, and the text ends with a newline. It does not check
// the configuration: call [ModelConfig.Check] first.
func (c ModelConfig) ServicesComponent() string {
	var b strings.Builder
	b.WriteString(`<component id="` + escapeXML(c.Component()) + `" type="hugging-face-embedder">` + "\n")
	writeModelElement(&b, "transformer-model", c.ModelID, c.ModelURL, c.ModelPath)
	writeModelElement(&b, "tokenizer-model", c.TokenizerID, c.TokenizerURL, c.TokenizerPath)
	text := func(name, value string) {
		if value != "" {
			b.WriteString("    <" + name + ">" + escapeXML(value) + "</" + name + ">\n")
		}
	}
	if c.MaxTokens > 0 {
		text("max-tokens", strconv.Itoa(c.MaxTokens))
	}
	text("transformer-input-ids", c.TransformerInputIDs)
	text("transformer-attention-mask", c.TransformerAttentionMask)
	if c.NoTokenTypeIDs {
		b.WriteString("    <transformer-token-type-ids/>\n")
	} else {
		text("transformer-token-type-ids", c.TransformerTokenTypeIDs)
	}
	text("transformer-output", c.TransformerOutput)
	text("pooling-strategy", string(c.Pooling))
	if c.Normalize {
		text("normalize", "true")
	}
	if c.QueryPrefix != "" || c.DocumentPrefix != "" {
		b.WriteString("    <prepend>\n")
		if c.QueryPrefix != "" {
			b.WriteString("        <query>" + escapeXML(c.QueryPrefix) + "</query>\n")
		}
		if c.DocumentPrefix != "" {
			b.WriteString("        <document>" + escapeXML(c.DocumentPrefix) + "</document>\n")
		}
		b.WriteString("    </prepend>\n")
	}
	b.WriteString("</component>\n")
	return b.String()
}

// writeModelElement writes a model-type element (model-id, url, path); it
// writes nothing when all three are empty.
func writeModelElement(b *strings.Builder, name, id, url, path string) {
	if id == "" && url == "" && path == "" {
		return
	}
	b.WriteString("    <" + name)
	for _, a := range [][2]string{{"model-id", id}, {"url", url}, {"path", path}} {
		if a[1] != "" {
			b.WriteString(" " + a[0] + `="` + escapeXML(a[1]) + `"`)
		}
	}
	b.WriteString("/>\n")
}

// escapeXML escapes s for use in XML text and attribute values.
func escapeXML(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
