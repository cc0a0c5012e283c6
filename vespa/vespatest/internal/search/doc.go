// Package search is the /search/ handler of the vespatest emulator: a faithful subset of Vespa's
// query API (YQL parsing, evaluation over an in-memory corpus and Vespa's JSON result rendering).
package search
