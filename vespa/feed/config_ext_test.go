package feed_test

import (
	"testing"

	"github.com/govespa/govespa/vespa/feed"
)

func TestCompression_StringAndParse(t *testing.T) {
	for _, tc := range []struct {
		c    feed.Compression
		name string
	}{{feed.CompressionAuto, "auto"}, {feed.CompressionNone, "none"}, {feed.CompressionGzip, "gzip"}} {
		if got := tc.c.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", int(tc.c), got, tc.name)
		}
		if got, err := feed.ParseCompression(tc.name); err != nil || got != tc.c {
			t.Errorf("ParseCompression(%q) = %v, %v", tc.name, got, err)
		}
	}
	if got, err := feed.ParseCompression(""); err != nil || got != feed.CompressionAuto {
		t.Errorf(`ParseCompression("") = %v, %v, want auto`, got, err)
	}
	for _, s := range []string{"Gzip", "zstd", "Compression(1)"} {
		if _, err := feed.ParseCompression(s); err == nil || err.Error() != `feed: unknown compression "`+s+`" (want auto, none or gzip)` {
			t.Errorf("ParseCompression(%q): %v", s, err)
		}
	}
	if got := feed.Compression(-1).String() + " " + feed.Compression(3).String(); got != "Compression(-1) Compression(3)" {
		t.Errorf("unknown values print as %q", got)
	}
}
