// Package ctlplane is the HTTP exchange of govespa's control plane, shared by
// packages deploy (a self-hosted config server) and cloud (Vespa Cloud): one
// call under a retry policy, or one upload sent exactly once; the reply error
// ([Error]) with its sentinels; and the poll that every wait runs.
package ctlplane
