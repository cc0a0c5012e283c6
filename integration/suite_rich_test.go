package integration

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// The rich round trip (issue 31): testdata/richapp has a field of every
// Vespa field type; a document with all of them set goes in as raw document
// JSON and must come back from a get, a visit and a query in the form Vespa
// writes it, and every update operation Vespa's JSON reader takes for a type
// must apply. The expectations are Vespa's: what its JsonWriter writes for a
// get (document module, JsonSerializationHelper), and what its JsonRenderer
// writes for a hit out of the content node's docsum (searchsummary
// slime_filler.cpp): maps and weighted sets as JSON objects, a position as
// {"lat","lng"}, raw as base64, a predicate in the C++ PredicatePrinter's form,
// tensors in the short form with their type, an unset bool attribute as false.

// richNS is the namespace of the rich round trip's documents.
const richNS = "rich"

// richPut is a document of type rich with every field set, in Vespa's
// document JSON: each tensor in another of the forms the reader takes (a
// dense array, values, cells, blocks, nested arrays).
const richPut = `{
 "f_string": "hello world",
 "f_int": 42,
 "f_long": 9007199254740993,
 "f_float": 1.5,
 "f_double": 2.25,
 "f_bool": true,
 "f_byte": -7,
 "f_position": {"lat": 37.401, "lng": -121.996},
 "f_uri": "https://example.com/a?b=c",
 "f_predicate": "gender in [Female] and age in [20..30]",
 "f_raw": "aGVsbG8=",
 "f_ref": "id:rich:artist::a1",
 "f_array_string": ["x", "y"],
 "f_array_int": [1, 2, 3],
 "f_array_struct": [{"name": "ann", "age": 3}, {"name": "bob", "age": 4}],
 "f_wset_string": {"red": 2, "blue": 5},
 "f_wset_int": {"7": 1, "8": 9},
 "f_map": {"k1": "v1", "k2": "v2"},
 "f_map_struct": {"a": {"name": "cy", "age": 30}},
 "f_struct": {"name": "dee", "age": 40},
 "t_float": [1, 2, 3, 4],
 "t_double": {"values": [0.5, 1.5]},
 "t_int8": {"values": [1, -2, 3]},
 "t_bfloat16": {"values": [1.5, 2.5]},
 "t_mapped": {"cells": {"a": 1.5, "b": 2.5}},
 "t_mixed": {"blocks": {"a": [1, 2], "b": [3, 4]}},
 "t_matrix": [[1, 2, 3], [4, 5, 6]]
}`

// richGot is what a get returns for richPut, field by field, as Vespa's
// JsonWriter writes it: the JDisc harness runs that code, and the emulator
// must match it. A tensor is written with its type (without <double>, as
// TensorType.toString) in the short form of its kind.
var richGot = map[string]string{
	"f_string":       `"hello world"`,
	"f_int":          `42`,
	"f_long":         `9007199254740993`,
	"f_float":        `1.5`,
	"f_double":       `2.25`,
	"f_bool":         `true`,
	"f_byte":         `-7`,
	"f_position":     `{"lat": 37.401, "lng": -121.996}`,
	"f_uri":          `"https://example.com/a?b=c"`,
	"f_predicate":    `"gender in [Female] and age in [20..30]"`,
	"f_raw":          `"aGVsbG8="`,
	"f_ref":          `"id:rich:artist::a1"`,
	"f_array_string": `["x", "y"]`,
	"f_array_int":    `[1, 2, 3]`,
	"f_array_struct": `[{"name": "ann", "age": 3}, {"name": "bob", "age": 4}]`,
	"f_wset_string":  `{"red": 2, "blue": 5}`,
	"f_wset_int":     `{"7": 1, "8": 9}`,
	"f_map":          `{"k1": "v1", "k2": "v2"}`,
	"f_map_struct":   `{"a": {"name": "cy", "age": 30}}`,
	"f_struct":       `{"name": "dee", "age": 40}`,
	"t_float":        `{"type": "tensor<float>(x[4])", "values": [1, 2, 3, 4]}`,
	"t_double":       `{"type": "tensor(x[2])", "values": [0.5, 1.5]}`,
	"t_int8":         `{"type": "tensor<int8>(x[3])", "values": [1, -2, 3]}`,
	"t_bfloat16":     `{"type": "tensor<bfloat16>(x[2])", "values": [1.5, 2.5]}`,
	"t_mapped":       `{"type": "tensor<float>(cat{})", "cells": {"a": 1.5, "b": 2.5}}`,
	"t_mixed":        `{"type": "tensor<float>(cat{},x[2])", "blocks": {"a": [1, 2], "b": [3, 4]}}`,
	"t_matrix":       `{"type": "tensor<float>(x[2],y[3])", "values": [[1, 2, 3], [4, 5, 6]]}`,
}

// richHitDiffers are the fields a hit renders otherwise than a get: the
// predicate, which the content node writes as PredicateFieldValue::toString
// (slime_filler.cpp), that is print(): document's C++ PredicatePrinter
// (predicate_printer.cpp: quoted keys and values, each conjunction in
// parentheses) and a newline (slime_filler_test.cpp insert_predicate). Every
// other field renders as in a get (slime_filler.cpp, JsonRenderer's map and
// weighted-set conversion).
var richHitDiffers = map[string]string{
	"f_predicate": `"('gender' in ['Female'] and 'age' in [20..30])\n"`,
}

// richHit is what a query hit holds for richPut.
func richHit() map[string]string {
	out := maps.Clone(richGot)
	maps.Copy(out, richHitDiffers)
	out["sddocname"] = `"rich"`
	out["documentid"] = `"id:rich:rich::r1"`
	return out
}

// richUpdate is one partial update and the fields it changes, as a get
// returns them after it.
type richUpdate struct {
	name   string
	fields string            // the "fields" object of the update
	want   map[string]string // field → JSON after the update
}

// richUpdates are applied in order to the document of richPut; each names
// the operations of Vespa's document JSON reader (DocumentUpdateJsonSerializer
// reads them: assign, add, remove, increment, decrement, multiply, divide,
// match, field paths, and the tensor operations modify, add and remove).
var richUpdates = []richUpdate{
	{
		name: "assign every primitive",
		fields: `{
 "f_string": {"assign": "bye"}, "f_int": {"assign": 7}, "f_long": {"assign": -5},
 "f_float": {"assign": 0.25}, "f_double": {"assign": -1.5}, "f_bool": {"assign": false},
 "f_byte": {"assign": 12}, "f_position": {"assign": {"lat": -1.5, "lng": 2.25}},
 "f_uri": {"assign": "http://vespa.ai/"}, "f_predicate": {"assign": "country in [no, se]"},
 "f_raw": {"assign": "AAEC"}, "f_ref": {"assign": "id:rich:artist::a2"}}`,
		want: map[string]string{
			"f_string": `"bye"`, "f_int": `7`, "f_long": `-5`, "f_float": `0.25`, "f_double": `-1.5`,
			"f_bool": `false`, "f_byte": `12`, "f_position": `{"lat": -1.5, "lng": 2.25}`,
			"f_uri": `"http://vespa.ai/"`, "f_predicate": `"country in [no, se]"`, "f_raw": `"AAEC"`,
			"f_ref": `"id:rich:artist::a2"`,
		},
	},
	{
		name:   "arithmetic",
		fields: `{"f_int": {"increment": 3}, "f_long": {"decrement": 5}, "f_float": {"multiply": 4}, "f_double": {"divide": 2}, "f_byte": {"increment": 1}}`,
		want:   map[string]string{"f_int": `10`, "f_long": `-10`, "f_float": `1`, "f_double": `-0.75`, "f_byte": `13`},
	},
	{
		name: "assign collections and structs",
		fields: `{
 "f_array_string": {"assign": ["p"]}, "f_array_int": {"assign": [9, 8]},
 "f_array_struct": {"assign": [{"name": "eve", "age": 5}]},
 "f_wset_string": {"assign": {"green": 1}}, "f_wset_int": {"assign": {"3": 4}},
 "f_map": {"assign": {"m": "n"}}, "f_map_struct": {"assign": {"z": {"name": "zed", "age": 9}}},
 "f_struct": {"assign": {"name": "fay", "age": 50}}}`,
		want: map[string]string{
			"f_array_string": `["p"]`, "f_array_int": `[9, 8]`, "f_array_struct": `[{"name": "eve", "age": 5}]`,
			"f_wset_string": `{"green": 1}`, "f_wset_int": `{"3": 4}`, "f_map": `{"m": "n"}`,
			"f_map_struct": `{"z": {"name": "zed", "age": 9}}`, "f_struct": `{"name": "fay", "age": 50}`,
		},
	},
	{
		name:   "add to arrays and weighted sets",
		fields: `{"f_array_string": {"add": ["q", "r"]}, "f_array_int": {"add": [7]}, "f_array_struct": {"add": [{"name": "gus", "age": 6}]}, "f_wset_string": {"add": {"blue": 2}}, "f_wset_int": {"add": {"5": 6}}}`,
		want: map[string]string{
			"f_array_string": `["p", "q", "r"]`, "f_array_int": `[9, 8, 7]`,
			"f_array_struct": `[{"name": "eve", "age": 5}, {"name": "gus", "age": 6}]`,
			"f_wset_string":  `{"green": 1, "blue": 2}`, "f_wset_int": `{"3": 4, "5": 6}`,
		},
	},
	{
		name:   "remove from arrays and weighted sets",
		fields: `{"f_array_string": {"remove": ["q"]}, "f_array_int": {"remove": [8]}, "f_wset_string": {"remove": {"green": 0}}, "f_wset_int": {"remove": {"3": 0}}}`,
		want: map[string]string{
			"f_array_string": `["p", "r"]`, "f_array_int": `[9, 7]`,
			"f_wset_string": `{"blue": 2}`, "f_wset_int": `{"5": 6}`,
		},
	},
	{
		name:   "match elements",
		fields: `{"f_array_int": {"match": {"element": 0, "increment": 1}}, "f_wset_string": {"match": {"element": "blue", "increment": 10}}, "f_array_string": {"match": {"element": 1, "assign": "s"}}}`,
		want:   map[string]string{"f_array_int": `[10, 7]`, "f_wset_string": `{"blue": 12}`, "f_array_string": `["p", "s"]`},
	},
	{
		name:   "field paths into maps and structs",
		fields: `{"f_map{k}": {"assign": "v"}, "f_struct.age": {"assign": 51}, "f_map_struct{z}.age": {"assign": 10}, "f_array_struct[0].name": {"assign": "eva"}}`,
		want: map[string]string{
			"f_map": `{"m": "n", "k": "v"}`, "f_struct": `{"name": "fay", "age": 51}`,
			"f_map_struct":   `{"z": {"name": "zed", "age": 10}}`,
			"f_array_struct": `[{"name": "eva", "age": 5}, {"name": "gus", "age": 6}]`,
		},
	},
	{
		name: "assign tensors",
		fields: `{
 "t_float": {"assign": {"values": [4, 3, 2, 1]}}, "t_double": {"assign": [2, 4]},
 "t_int8": {"assign": {"values": "7ffe01"}}, "t_bfloat16": {"assign": {"values": [0.5, -2]}},
 "t_mapped": {"assign": {"cells": [{"address": {"cat": "c"}, "value": 3}]}},
 "t_mixed": {"assign": {"cells": [{"address": {"cat": "c", "x": "1"}, "value": 2}]}},
 "t_matrix": {"assign": {"values": [6, 5, 4, 3, 2, 1]}}}`,
		want: map[string]string{
			"t_float":    `{"type": "tensor<float>(x[4])", "values": [4, 3, 2, 1]}`,
			"t_double":   `{"type": "tensor(x[2])", "values": [2, 4]}`,
			"t_int8":     `{"type": "tensor<int8>(x[3])", "values": [127, -2, 1]}`,
			"t_bfloat16": `{"type": "tensor<bfloat16>(x[2])", "values": [0.5, -2]}`,
			"t_mapped":   `{"type": "tensor<float>(cat{})", "cells": {"c": 3}}`,
			"t_mixed":    `{"type": "tensor<float>(cat{},x[2])", "blocks": {"c": [0, 2]}}`,
			"t_matrix":   `{"type": "tensor<float>(x[2],y[3])", "values": [[6, 5, 4], [3, 2, 1]]}`,
		},
	},
	{
		name: "modify tensors",
		fields: `{
 "t_float": {"modify": {"operation": "replace", "cells": [{"address": {"x": "0"}, "value": 9}]}},
 "t_double": {"modify": {"operation": "add", "cells": [{"address": {"x": "1"}, "value": 1}]}},
 "t_matrix": {"modify": {"operation": "multiply", "cells": [{"address": {"x": "1", "y": "2"}, "value": 10}]}},
 "t_mapped": {"modify": {"operation": "add", "cells": {"c": 1}}},
 "t_mixed": {"modify": {"operation": "replace", "blocks": {"c": [5, 6]}}}}`,
		want: map[string]string{
			"t_float":  `{"type": "tensor<float>(x[4])", "values": [9, 3, 2, 1]}`,
			"t_double": `{"type": "tensor(x[2])", "values": [2, 5]}`,
			"t_matrix": `{"type": "tensor<float>(x[2],y[3])", "values": [[6, 5, 4], [3, 2, 10]]}`,
			"t_mapped": `{"type": "tensor<float>(cat{})", "cells": {"c": 4}}`,
			"t_mixed":  `{"type": "tensor<float>(cat{},x[2])", "blocks": {"c": [5, 6]}}`,
		},
	},
	{
		name:   "add and remove tensor cells",
		fields: `{"t_mapped": {"add": {"cells": {"d": 7, "e": 8}}}, "t_mixed": {"add": {"blocks": {"d": [1, 1]}}}}`,
		want: map[string]string{
			"t_mapped": `{"type": "tensor<float>(cat{})", "cells": {"c": 4, "d": 7, "e": 8}}`,
			"t_mixed":  `{"type": "tensor<float>(cat{},x[2])", "blocks": {"c": [5, 6], "d": [1, 1]}}`,
		},
	},
	{
		name:   "remove tensor cells",
		fields: `{"t_mapped": {"remove": {"addresses": [{"cat": "d"}]}}, "t_mixed": {"remove": {"addresses": [{"cat": "c"}]}}}`,
		want: map[string]string{
			"t_mapped": `{"type": "tensor<float>(cat{})", "cells": {"c": 4, "e": 8}}`,
			"t_mixed":  `{"type": "tensor<float>(cat{},x[2])", "blocks": {"d": [1, 1]}}`,
		},
	},
}

// richDiff is a difference from Vespa a target is known to have: why, and,
// for a field, the JSON the target writes instead (richAbsent when it
// leaves the field out). The test logs the difference when the target
// answers exactly that, and fails when it answers anything else.
type richDiff struct {
	reason string
	got    string
}

// richAbsent is richDiff.got for a field a target leaves out.
const richAbsent = "(absent)"

// richKnown are the differences from Vespa a target is known to have, by
// target and "<step> <field>" (or a step of its own, as "rank typed", or
// "typed <case>" for the typed round trip's field references, whose got is
// typedMatchAnswer's).
// Anything else that differs fails the test.
var richKnown = map[string]map[string]richDiff{
	"emulator": {
		"rank typed": {reason: "the emulator does not evaluate sum(query(q) * attribute(t_float)) and says so with 501"},
	},
	"jdisc": {
		"rank typed": {reason: "the harness's searcher ranks by bm25 or closeness only (integration/jdisc StoreSearcher) and says so " +
			"with 501 for another first-phase expression; the container's own input checks (the 400 above) are Vespa's"},
	},
}

// TestRich_RoundTrip puts a document with a field of every type into each
// target serving testdata/richapp, and checks that a get, a visit and a
// query return every field as Vespa writes it, then applies the update
// operations of every type and reads the document back after each.
func TestRich_RoundTrip(t *testing.T) {
	forEachAppTarget(t, richAppDir, func(t *testing.T, tg Target) {
		r := newRawAPI(t, tg)
		r.putRaw(t, richNS, "artist", "a1", `{"name": "Ada"}`)
		r.putRaw(t, richNS, "artist", "a2", `{"name": "Bo"}`)
		r.putRaw(t, richNS, "rich", "r1", richPut)

		t.Run("get", func(t *testing.T) {
			compareRichFields(t, tg.Name(), "get", r.getFields(t, richNS, "rich", "r1"), richGot)
		})
		t.Run("visit", func(t *testing.T) {
			docs := r.visitFields(t, richNS, "rich")
			if len(docs) != 1 {
				t.Fatalf("[%s] visit: %d documents, want 1: %v", tg.Name(), len(docs), slices.Collect(maps.Keys(docs)))
			}
			compareRichFields(t, tg.Name(), "visit", docs["id:rich:rich::r1"], richGot)
		})
		t.Run("query", func(t *testing.T) {
			hits := r.queryHits(t, "select * from rich where true", nil)
			if len(hits) != 1 {
				t.Fatalf("[%s] query: %d hits, want 1: %s", tg.Name(), len(hits), clipJSON(hits))
			}
			h := hits[0]
			if h["id"] != "id:rich:rich::r1" || h["source"] != tg.Cluster() {
				t.Errorf("[%s] hit id %v, source %v; want id:rich:rich::r1 from %s", tg.Name(), h["id"], h["source"], tg.Cluster())
			}
			fields, _ := h["fields"].(map[string]any)
			compareRichFields(t, tg.Name(), "hit", fields, richHit())
		})
		t.Run("query on documentid is refused", func(t *testing.T) {
			// documentid is a summary field only, with no index info (config-model
			// SummaryClass, IndexInfo): YqlParser.getIndex refuses it.
			a := r.query(t, url.Values{"yql": {`select * from rich where documentid contains "id:rich:rich::r1"`}})
			if a.Status != http.StatusBadRequest || !strings.Contains(string(a.Body), "Field 'documentid' does not exist.") {
				t.Errorf("[%s] query on documentid: status %d: %s", tg.Name(), a.Status, clip(a.Body))
			}
		})
		t.Run("query the referenced type", func(t *testing.T) {
			hits := r.queryHits(t, "select * from artist where true", nil)
			if len(hits) != 2 {
				t.Fatalf("[%s] query artist: %d hits, want 2: %s", tg.Name(), len(hits), clipJSON(hits))
			}
		})
		t.Run("unranked", func(t *testing.T) {
			// The built-in unranked profile's first phase is value(0)
			// (config-model UnrankedRankProfile): every hit's relevance is 0.
			hits := r.queryHits(t, `select * from rich where f_string contains "hello"`, url.Values{"ranking": {"unranked"}})
			if len(hits) != 1 {
				t.Fatalf("[%s] unranked query: %d hits, want 1: %s", tg.Name(), len(hits), clipJSON(hits))
			}
			if same, _ := jsonSame(expectJSON(`0`), hits[0]["relevance"]); !same {
				t.Errorf("[%s] unranked query: relevance %v, want 0", tg.Name(), hits[0]["relevance"])
			}
		})
		t.Run("bm25 of one field", func(t *testing.T) {
			// Profile bm25 ranks by bm25(f_string): a hit that matched only
			// f_uri scores 0, one that matched f_string more.
			for _, c := range []struct {
				yql      string
				positive bool
			}{
				{`select * from rich where f_uri contains "example"`, false},
				{`select * from rich where f_string contains "hello"`, true},
			} {
				hits := r.queryHits(t, c.yql, url.Values{"ranking": {"bm25"}})
				if len(hits) != 1 {
					t.Fatalf("[%s] %s: %d hits, want 1: %s", tg.Name(), c.yql, len(hits), clipJSON(hits))
				}
				rel, _ := hits[0]["relevance"].(json.Number)
				f, err := rel.Float64()
				if err != nil || (f > 0) != c.positive || f < 0 {
					t.Errorf("[%s] %s ranked by bm25(f_string): relevance %v, want it positive: %v", tg.Name(), c.yql, hits[0]["relevance"], c.positive)
				}
			}
		})
		t.Run("cell types and float precision", func(t *testing.T) { testRichPrecision(t, r) })
		t.Run("undefined values", func(t *testing.T) { testRichUndefined(t, r) })
		t.Run("values refused or read in another form", func(t *testing.T) { testRichPutForms(t, r) })
		t.Run("typed rank inputs", func(t *testing.T) { testRichRankInputs(t, r) })
		t.Run("updates", func(t *testing.T) {
			want := maps.Clone(richGot)
			for _, u := range richUpdates {
				a := r.updateRaw(t, richNS, "rich", "r1", u.fields)
				if a.Status != http.StatusOK {
					t.Errorf("[%s] update %q: status %d: %s", tg.Name(), u.name, a.Status, clip(a.Body))
					continue
				}
				maps.Copy(want, u.want)
				compareRichFields(t, tg.Name(), "update "+u.name, r.getFields(t, richNS, "rich", "r1"), want)
			}
		})
	})
}

// testRichPrecision puts values that a float or a bfloat16 cannot hold
// exactly. Vespa keeps what its binary document format holds (a float
// field's float, a float cell's float, a bfloat16 cell's upper 16 bits):
// a get writes a float field as the float (document JsonWriter), 0.1, but
// a tensor's float cells widened to doubles, 0.10000000149011612; a hit
// holds the float field widened to a double (the docsum's insertDouble,
// searchsummary slime_filler.cpp) and the tensor's float cells as floats
// (JsonRenderer over vespajlib JsonFormat), 0.1. r2 has no f_bool: its
// bool attribute holds 0, which the hit holds as false (searchsummary
// SingleAttrDFW; a bool attribute has no undefined value to leave out).
func testRichPrecision(t *testing.T, r *rawAPI) {
	r.putRaw(t, richNS, "rich", "r2", `{"f_float": 0.1, "f_double": 0.1, "t_float": [0.1, 0.2, 0.3, 1e-7], "t_bfloat16": [0.1, 3.3], "t_mapped": {"a": 0.1}}`)
	defer r.mustDo(t, http.MethodDelete, docPath(richNS, "rich", "r2"), "", http.StatusOK)
	got := map[string]string{
		"f_float":    `0.1`,
		"f_double":   `0.1`,
		"t_float":    `{"type": "tensor<float>(x[4])", "values": [0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 1.0000000116860974e-07]}`,
		"t_bfloat16": `{"type": "tensor<bfloat16>(x[2])", "values": [0.099609375, 3.296875]}`,
		"t_mapped":   `{"type": "tensor<float>(cat{})", "cells": {"a": 0.10000000149011612}}`,
	}
	compareRichFields(t, r.tg.Name(), "r2 get", r.getFields(t, richNS, "rich", "r2"), got)
	hit := map[string]string{
		"sddocname":  `"rich"`,
		"documentid": `"id:rich:rich::r2"`,
		"f_bool":     `false`,
		"f_float":    `0.10000000149011612`,
		"f_double":   `0.1`,
		"t_float":    `{"type": "tensor<float>(x[4])", "values": [0.1, 0.2, 0.3, 1.0E-7]}`,
		"t_bfloat16": `{"type": "tensor<bfloat16>(x[2])", "values": [0.099609375, 3.296875]}`,
		"t_mapped":   `{"type": "tensor<float>(cat{})", "cells": {"a": 0.1}}`,
	}
	hits := r.queryHits(t, "select * from rich where f_double < 1", nil) // r2 alone
	if len(hits) != 1 {
		t.Fatalf("[%s] query for r2: %d hits, want 1: %s", r.tg.Name(), len(hits), clipJSON(hits))
	}
	fields, _ := hits[0]["fields"].(map[string]any)
	compareRichFields(t, r.tg.Name(), "r2 hit", fields, hit)
}

// testRichUndefined puts the values a docsum leaves out as undefined: the
// smallest value of an integer attribute, which is the attribute's
// undefined value (searchsummary SingleAttrDFW.isDefaultValue,
// undefinedvalues.h), and empty raw (check_undefined_value_visitor.cpp). A
// get returns them all; a hit holds none of them, but the unset bool
// attribute's false.
func testRichUndefined(t *testing.T, r *rawAPI) {
	r.putRaw(t, richNS, "rich", "r3", `{"f_string": "undefined values", "f_int": -2147483648, "f_long": -9223372036854775808, "f_byte": -128, "f_raw": ""}`)
	defer r.mustDo(t, http.MethodDelete, docPath(richNS, "rich", "r3"), "", http.StatusOK)
	got := map[string]string{
		"f_string": `"undefined values"`,
		"f_int":    `-2147483648`,
		"f_long":   `-9223372036854775808`,
		"f_byte":   `-128`,
		"f_raw":    `""`,
	}
	compareRichFields(t, r.tg.Name(), "r3 get", r.getFields(t, richNS, "rich", "r3"), got)
	hits := r.queryHits(t, `select * from rich where f_string contains "undefined"`, nil) // r3 alone
	if len(hits) != 1 {
		t.Fatalf("[%s] query for r3: %d hits, want 1: %s", r.tg.Name(), len(hits), clipJSON(hits))
	}
	fields, _ := hits[0]["fields"].(map[string]any)
	compareRichFields(t, r.tg.Name(), "r3 hit", fields, map[string]string{
		"sddocname":  `"rich"`,
		"documentid": `"id:rich:rich::r3"`,
		"f_string":   `"undefined values"`,
		"f_bool":     `false`,
	})
}

// richPutForm is a put of one field and what Vespa's JSON reader makes of
// it: a 400 naming the problem, or the value a get then returns.
type richPutForm struct {
	name, fields string
	status       int
	text         string            // in the 400's message
	got          map[string]string // after a 200
}

// richPutForms are values the JSON reader (document json/readers, run by
// the JDisc harness) refuses, or reads in a form other than the one a get
// writes.
var richPutForms = []richPutForm{
	{name: "unknown struct field", fields: `{"f_struct": {"nope": 1}}`, status: 400, text: "Field 'nope' is not defined in struct type 'person'"},
	{name: "struct field of the wrong type", fields: `{"f_struct": {"age": "x"}}`, status: 400, text: `For input string: \"x\"`},
	{name: "unknown field in an array of structs", fields: `{"f_array_struct": [{"nope": 1}]}`, status: 400, text: "Could not parse field 'f_array_struct' of type Array<person>: Field 'nope' is not defined in struct type 'person'"},
	{name: "wrong type in a map of structs", fields: `{"f_map_struct": {"a": {"age": "x"}}}`, status: 400, text: `of type Map<string,person>: In document 'null': Could not parse field 'age' of type int: For input string: \"x\"`},
	{name: "malformed predicate", fields: `{"f_predicate": "a in"}`, status: 400, text: "f_predicate"},
	{name: "raw not base64", fields: `{"f_raw": "!!notbase64"}`, status: 400, text: "Last unit does not have enough valid bits"},
	{name: "reference to another type", fields: `{"f_ref": "id:rich:rich::x"}`, status: 400, text: "of type Reference<artist>: Can't assign document ID 'id:rich:rich::x' (of type 'rich') to reference of document type 'artist'"},
	{name: "reference not a document ID", fields: `{"f_ref": "not an id"}`, status: 400, text: "Unparseable id 'not an id': Scheme missing"},
	{name: "position coordinate not a number", fields: `{"f_position": {"lat": "x"}}`, status: 400, text: "Expected a number but got 'x"},
	{name: "byte out of range", fields: `{"f_byte": 300}`, status: 400, text: `Value out of range. Value:\"300\" Radix:10`},
	{name: "int out of range", fields: `{"f_int": 3000000000}`, status: 400, text: `For input string: \"3000000000\"`},
	{name: "mapped tensor address of an unknown dimension", fields: `{"t_mapped": {"cells": [{"address": {"nope": "a"}, "value": 1}]}}`, status: 400, text: "nope"},
	{name: "weighted set as an array", fields: `{"f_wset_string": ["a", "b"]}`, status: 400, text: "f_wset_string"},
	{name: "position as text", fields: `{"f_position": "N37.4;W121.9"}`, status: 200, got: map[string]string{"f_position": `{"lat": 37.4, "lng": -121.9}`}},
	{name: "position in micro-degrees", fields: `{"f_position": {"x": 1, "y": 2}}`, status: 200, got: map[string]string{"f_position": `{"lat": 0.000002, "lng": 0.000001}`}},
	{name: "number for a string", fields: `{"f_map": {"k": 1}, "f_uri": 5}`, status: 200, got: map[string]string{"f_map": `{"k": "1"}`, "f_uri": `"5"`}},
	{name: "bool from text", fields: `{"f_bool": "yes"}`, status: 200, got: map[string]string{"f_bool": `false`}},
	{name: "map as key-value entries", fields: `{"f_map": [{"key": "k", "value": "v"}]}`, status: 200, got: map[string]string{"f_map": `{"k": "v"}`}},
	{name: "raw without padding", fields: `{"f_raw": "aGVsbG8"}`, status: 200, got: map[string]string{"f_raw": `"aGVsbG8="`}},
	{name: "quoted predicate", fields: `{"f_predicate": "'a' in ['b', c] and 'x y' not in [z]"}`, status: 200, got: map[string]string{"f_predicate": `"a in [b, c] and 'x y' not in [z]"`}},
}

// testRichPutForms puts each of richPutForms as its own document.
func testRichPutForms(t *testing.T, r *rawAPI) {
	name := r.tg.Name()
	for i, c := range richPutForms {
		key := fmt.Sprintf("form-%d", i)
		a, err := r.do(t.Context(), http.MethodPost, docPath(richNS, "rich", key), `{"fields":`+c.fields+`}`)
		if err != nil {
			t.Fatalf("[%s] put %s: %v", name, c.name, err)
		}
		if a.Status != c.status || (c.text != "" && !strings.Contains(string(a.Body), c.text)) {
			t.Errorf("[%s] put %s %s: status %d, want %d with %q: %s", name, c.name, c.fields, a.Status, c.status, c.text, clip(a.Body))
			continue
		}
		if a.Status == http.StatusOK {
			compareRichFields(t, name, "put "+c.name, r.getFields(t, richNS, "rich", key), c.got)
			r.mustDo(t, http.MethodDelete, docPath(richNS, "rich", key), "", http.StatusOK)
		}
	}
}

// testRichRankInputs queries with the typed rank profile: a tensor input
// of the wrong type is refused with 400 by the container's own checks
// (RankProfileInputProperties: "Could not set 'ranking.features.query(q)'"),
// and good ones are taken.
func testRichRankInputs(t *testing.T, r *rawAPI) {
	name := r.tg.Name()
	// restrict names the schema before the inputs are read: container-search
	// RankProfileInputProperties resolves the profile's input types when the
	// first input is set, before YQL's "from rich" has set the sources, and
	// with no schema named it finds no declared type and checks nothing.
	yql := "select * from rich where true"
	bad := r.query(t, url.Values{"yql": {yql}, "restrict": {"rich"}, "ranking": {"typed"}, "input.query(q)": {"{{y:0}:1}"}})
	ok := r.query(t, url.Values{"yql": {yql}, "restrict": {"rich"}, "ranking": {"typed"}, "input.query(q)": {"[1,1,1,1]"}, "input.query(w)": {"2"}})
	checkRankStatus(t, name, "rank bad-input", bad, http.StatusBadRequest,
		"Could not set 'ranking.features.query(q)' to '{{y:0}:1}': Could not parse '{{y:0}:1}' as a tensor of type tensor<float>(x[4]): tensor<float>(x[4]) does not contain dimension 'y'")
	checkRankStatus(t, name, "rank typed", ok, http.StatusOK, "")
}

// checkRankStatus checks a's status (and that its body holds text): want,
// or 501 where richKnown lists key for the target.
func checkRankStatus(t *testing.T, target, key string, a *rawAnswer, want int, text string) {
	t.Helper()
	if diff, known := richKnown[target][key]; known {
		if a.Status != http.StatusNotImplemented {
			t.Errorf("[%s] %s: status %d, want 501 as the known difference says (%s): %s", target, key, a.Status, diff.reason, clip(a.Body))
			return
		}
		t.Logf("[%s] %s: known difference: 501 (%s)", target, key, diff.reason)
		return
	}
	if a.Status != want || !strings.Contains(string(a.Body), text) {
		t.Errorf("[%s] %s: status %d, want %d with %q: %s", target, key, a.Status, want, text, clip(a.Body))
	}
}

// compareRichFields compares got with want field by field (as JSON values:
// numbers by value, objects whatever their key order) and fails t for every
// field that differs, is missing or is not expected, unless richKnown lists
// "<step> <field>" for the target and the target answers what it says.
func compareRichFields(t *testing.T, target, step string, got map[string]any, want map[string]string) {
	t.Helper()
	names := slices.Sorted(maps.Keys(want))
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	for _, name := range names {
		diff, known := richKnown[target][step+" "+name]
		w, expected := want[name]
		g, present := got[name]
		var problem string
		switch {
		case !expected:
			problem = "not expected: " + clipJSON(g)
		case !present:
			problem = "missing, want " + w
		default:
			if same, why := jsonSame(expectJSON(w), g); !same {
				problem = "got " + clipJSON(g) + ", want " + w + " (" + why + ")"
			}
		}
		switch {
		case problem != "" && known && knownAnswer(diff, g, present):
			t.Logf("[%s] %s %s: known difference: %s (%s)", target, step, name, problem, diff.reason)
		case problem != "" && known:
			t.Errorf("[%s] %s %s: %s, nor the known difference %s (%s)", target, step, name, problem, diff.got, diff.reason)
		case problem != "":
			t.Errorf("[%s] %s %s: %s", target, step, name, problem)
		case known:
			t.Logf("[%s] %s %s: listed as a known difference (%s) but the same now", target, step, name, diff.reason)
		}
	}
}

// knownAnswer reports whether a field's value (g, when present) is the one
// the known difference diff says the target writes.
func knownAnswer(diff richDiff, g any, present bool) bool {
	if diff.got == richAbsent || !present {
		return diff.got == richAbsent && !present
	}
	if diff.got == "" {
		return false
	}
	same, _ := jsonSame(expectJSON(diff.got), g)
	return same
}
