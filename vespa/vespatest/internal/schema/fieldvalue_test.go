package schema

import "testing"

// TestFieldType_Normalize_asVespasReader covers the values Vespa's JSON
// reader (document module json/readers, run by integration's JDisc harness,
// whose answers the expected texts are) takes in more than one form or
// refuses: integer ranges, strings from numbers, bools through
// Boolean.parseBoolean, the array form of maps, positions, raw (empty
// raw too) and references.
func TestFieldType_Normalize_asVespasReader(t *testing.T) {
	checkNormalize(t, []normalizeCase{
		{"int", `2147483647`, `2147483647`, ""},
		{"int", `3000000000`, "", `For input string: "3000000000"`},
		{"byte", `-128`, `-128`, ""},
		{"byte", `300`, "", `Value out of range. Value:"300" Radix:10`},
		{"long", `9007199254740993`, `9007199254740993`, ""},
		{"long", `99999999999999999999`, "", `For input string: "99999999999999999999"`},
		{"string", `5`, `"5"`, ""},
		{"uri", `true`, `"true"`, ""},
		{"string", `{"a":1}`, "", `expected a string, got {"a":1}`},
		{"bool", `"TRUE"`, `true`, ""},
		{"bool", `"yes"`, `false`, ""},
		{"bool", `1`, `false`, ""},
		{"map<string,string>", `[{"key":"k","value":"v"}]`, `{"k":"v"}`, ""},
		{"map<string,string>", `{"k":1}`, `{"k":"1"}`, ""},
		{"map<string,string>", `[{"key":"k"}]`, "", `a map entry needs 'key' and 'value', got {"key":"k"}`},
		{"position", `{"lat":37.401,"lng":-121.996}`, `{"lat":37.401,"lng":-121.996}`, ""},
		{"position", `{"x":1,"y":2}`, `{"lat":0.000002,"lng":0.000001}`, ""},
		{"position", `"N37.4;W121.9"`, `{"lat":37.4,"lng":-121.9}`, ""},
		{"position", `"-121900000;37400000"`, `{"lat":37.4,"lng":-121.9}`, ""},
		{"position", `{"lat":"x"}`, "", `Expected a number but got 'x`},
		{"position", `{"lat":1}`, "", `Missing 'lng' attribute in geo position field`},
		{"position", `{"lat":1,"lng":2,"z":3}`, "", `Unexpected attribute z in geo position field`},
		{"position", `"somewhere"`, "", `Could not parse 'somewhere' as geo coordinates`},
		{"raw", `"aGVsbG8="`, `"aGVsbG8="`, ""},
		{"raw", `"aGVsbG8"`, `"aGVsbG8="`, ""},
		{"raw", `"!!notbase64"`, "", `Last unit does not have enough valid bits`},
		// Empty raw is kept, and a get writes it as "" (document JsonWriter);
		// an empty string is no value.
		{"raw", `""`, `""`, ""},
		{"string", `""`, "", ""},
		{"reference<artist>", `"id:ns:artist::a1"`, `"id:ns:artist::a1"`, ""},
		{"reference<artist>", `"id:ns:rich::x"`, "", `Can't assign document ID 'id:ns:rich::x' (of type 'rich') to reference of document type 'artist'`},
		{"reference<artist>", `"not an id"`, "", `Unparseable id 'not an id': Scheme missing`},
		{"predicate", `"a in [b] and c in [1..2]"`, `"a in [b] and c in [1..2]"`, ""},
		{"predicate", `"'a' in ['b']"`, `"a in [b]"`, ""},
	})
}
