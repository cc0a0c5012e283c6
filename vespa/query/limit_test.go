package query

import (
	"testing"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// The public default is the one the internal package applies.
func TestDefaultResultLimitIsWire(t *testing.T) {
	if DefaultResultLimit != wire.DefaultQueryLimit {
		t.Errorf("DefaultResultLimit %d, wire applies %d", DefaultResultLimit, wire.DefaultQueryLimit)
	}
}
