package docapi

import (
	"sync/atomic"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/store"
)

// Backend is what /document/v1 serves from: the store, the deployed
// application, the faults to inject and the server's settings. The server
// that owns them builds one; it is safe for concurrent use.
type Backend struct {
	Store           *store.Store
	Application     *atomic.Pointer[schema.Application]
	Faults          *fault.Set
	IgnoreUndefined bool  // WithIgnoreUndefinedFields
	MaxRequestBytes int64 // WithMaxRequestBytes
}
