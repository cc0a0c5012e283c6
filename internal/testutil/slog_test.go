package testutil

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestMultiHandler_WritesEveryHandler(t *testing.T) {
	var text, js bytes.Buffer
	l := slog.New(MultiHandler(slog.NewTextHandler(&text, nil), slog.NewJSONHandler(&js, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.With("k", "v").WithGroup("g").Debug("quiet", "a", 1)
	if text.Len() != 0 || !strings.Contains(js.String(), `"g":{"a":1}`) || !strings.Contains(js.String(), `"k":"v"`) {
		t.Fatalf("debug record: text %q, json %q", text.String(), js.String())
	}
	l.Info("loud")
	if !strings.Contains(text.String(), "msg=loud") || strings.Count(js.String(), "\n") != 2 {
		t.Fatalf("info record: text %q, json %q", text.String(), js.String())
	}
}
