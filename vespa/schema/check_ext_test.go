package schema_test

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa/schema"
)

const checkSD = `schema music {
    document music {
        field title type string { indexing: summary | index }
        field year type int { indexing: summary | attribute }
        field plays type long { indexing: attribute }
        field rating type double { indexing: attribute }
        field flag type byte { indexing: attribute }
        field live type bool { indexing: attribute }
        field tags type array<string> { indexing: attribute }
        field scores type weightedset<string> { indexing: attribute }
        field counts type map<string, int> { indexing: summary }
        field where type position { indexing: attribute }
        field blob type raw { indexing: summary }
        field track type trackinfo { indexing: summary }
        field embedding type tensor<float>(x[3]) { indexing: attribute }
        field small type tensor<int8>(x[2]) { indexing: attribute }
        field cats type tensor<float>(cat{}) { indexing: attribute }
        struct trackinfo {
            field name type string {}
            field seconds type int {}
        }
    }
}
`

func checkApp(t *testing.T) *schema.Application {
	t.Helper()
	s, err := schema.Parse("music.sd", []byte(checkSD))
	if err != nil {
		t.Fatal(err)
	}
	a, err := schema.NewApplication(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCheckPut: what Vespa's document JSON reader takes passes, what it
// refuses is a *CheckError naming the field (or the path inside it) and
// what was wanted.
func TestCheckPut(t *testing.T) {
	a := checkApp(t)
	for _, ok := range []string{
		``,
		`{}`,
		`{"title":"Hey","year":1990,"plays":12345678901,"rating":4.5,"flag":-3,"live":true}`,
		`{"year":"1990","rating":"NaN","live":"false","title":null}`,
		`{"tags":["a","b"],"scores":{"a":1,"b":-2},"counts":{"x":1}}`,
		`{"counts":[{"key":"x","value":2}]}`,
		`{"where":{"lat":37.4,"lng":-122.0}}`, `{"where":"N37.4;W122.0"}`,
		`{"blob":"aGVsbG8="}`,
		`{"track":{"name":"a","seconds":200}}`,
		`{"embedding":[1,2,3]}`, `{"embedding":{"values":[1,2,3]}}`,
		`{"embedding":{"cells":[{"address":{"x":"0"},"value":1}]}}`,
		`{"embedding":"3f8000003f8000003f800000"}`,
		`{"small":[1,-128]}`,
		`{"cats":{"a":1,"b":2}}`, `{"cats":{"cells":{"a":1}}}`,
		`{"cats":{"cells":[{"address":{"cat":"a"},"value":1}]}}`,
	} {
		if err := a.CheckPut("music", []byte(ok)); err != nil {
			t.Errorf("CheckPut(%s): %v", ok, err)
		}
	}
	for _, bad := range []struct{ fields, field, want string }{
		{`{"yeer":1990}`, "yeer", "a field of music"},
		{`{"year":"1990x"}`, "year", "int"},
		{`{"year":1990.5}`, "year", "int"},
		{`{"year":3000000000}`, "year", "32-bit"},
		{`{"flag":300}`, "flag", "8-bit"},
		{`{"rating":"high"}`, "rating", "double"},
		{`{"live":"yes"}`, "live", "bool"},
		{`{"title":{"a":1}}`, "title", "string"},
		{`{"tags":"a"}`, "tags", "array<string>"},
		{`{"tags":["a",null]}`, "tags[1]", "string"},
		{`{"scores":{"a":"x"}}`, "scores{a}", "integer weight"},
		{`{"counts":{"x":"y"}}`, "counts{x}", "int"},
		{`{"blob":"not base64!"}`, "blob", "base64"},
		{`{"track":{"nome":"a"}}`, "track.nome", "a field of struct trackinfo"},
		{`{"track":{"seconds":"long"}}`, "track.seconds", "int"},
		{`{"embedding":[1,2]}`, "embedding", "3 cell values"},
		{`{"embedding":[1,2,"x"]}`, "embedding", "a number"},
		{`{"embedding":{"cells":[{"address":{"y":"0"},"value":1}]}}`, "embedding.cells[0]", "dimension x"},
		{`{"embedding":{"cells":[{"address":{"x":"3"},"value":1}]}}`, "embedding.cells[0]", "x[3]"},
		{`{"embedding":"3f800000"}`, "embedding", "24 hex digits"},
		{`{"small":[1,200]}`, "small", "int8"},
		{`{"cats":{"a":"b"}}`, "cats{a}", "a number"},
	} {
		err := a.CheckPut("music", []byte(bad.fields))
		var ce *schema.CheckError
		if !errors.As(err, &ce) || !errors.Is(err, schema.ErrInvalidDocument) {
			t.Errorf("CheckPut(%s) = %v, want a *CheckError", bad.fields, err)
			continue
		}
		if ce.Field != bad.field || !strings.Contains(ce.Want, bad.want) || ce.DocType != "music" {
			t.Errorf("CheckPut(%s): %v (field %q, want %q); want field %q wanting %q", bad.fields, err, ce.Field, ce.Want, bad.field, bad.want)
		}
	}
	if err := a.CheckPut("album", []byte(`{}`)); !errors.Is(err, schema.ErrInvalidDocument) || !strings.Contains(err.Error(), `"album"`) {
		t.Errorf("unknown document type: %v", err)
	}
}

// TestCheckUpdate: each operation is checked against the field's type.
func TestCheckUpdate(t *testing.T) {
	a := checkApp(t)
	for _, ok := range []string{
		`{"year":{"increment":1}}`, `{"rating":{"multiply":2}}`, `{"title":{"assign":"x"}}`,
		`{"tags":{"add":["c"]}}`, `{"scores":{"remove":{"a":0}}}`, `{"tags":{"match":{"element":0,"assign":"z"}}}`,
		`{"embedding":{"modify":{"operation":"replace","cells":[]}}}`, `{"title":{"assign":null}}`,
		`{"track.name":{"assign":"b"}}`, `{"counts{x}":{"assign":3}}`,
	} {
		if err := a.CheckUpdate("music", []byte(ok)); err != nil {
			t.Errorf("CheckUpdate(%s): %v", ok, err)
		}
	}
	checkRefusesOf(t, a.CheckUpdate, []struct{ fields, field, want string }{
		{`{"title":{"increment":1}}`, "title", "an update operation that string takes"},
		{`{"year":{"increment":"a"}}`, "year", "a number"},
		{`{"year":{"add":[1]}}`, "year", "an update operation that int takes"},
		{`{"year":{"assign":"x"}}`, "year", "int"},
		{`{"title":{"modify":{}}}`, "title", "an update operation that string takes"},
		{`{"title":{"replace":"x"}}`, "title", "an update operation ("},
		{`{"yeer":{"assign":1}}`, "yeer", "a field of music"},
		{`{"nope.x":{"assign":1}}`, "nope.x", "a field of music"},
		{`{"title":"x"}`, "title", "an object of update operations"},
	})
}

// BenchmarkCheckPut checks a put of the music schema of
// integration/testdata/app: a small one (title, year, tags) and the same
// with a 384-cell dense tensor.
func BenchmarkCheckPut(b *testing.B) {
	s, err := schema.Parse("m.sd", []byte(`schema m { document m {
        field title type string { indexing: summary }
        field year type int { indexing: summary | attribute }
        field tags type array<string> { indexing: summary | attribute }
        field embedding type tensor<float>(x[384]) { indexing: attribute } } }`))
	if err != nil {
		b.Fatal(err)
	}
	a, err := schema.NewApplication(s)
	if err != nil {
		b.Fatal(err)
	}
	small := `{"title":"A Head Full of Dreams","year":2015,"tags":["pop","rock","live"]`
	var sb strings.Builder
	sb.WriteString(small + `,"embedding":{"values":[`)
	for i := range 384 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatFloat(float64(i%97)/97-0.5, 'f', 6, 64))
	}
	sb.WriteString(`]}}`)
	for _, doc := range []struct{ name, fields string }{{"small", small + "}"}, {"embedding384", sb.String()}} {
		fields := []byte(doc.fields)
		b.Run(doc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := a.CheckPut("m", fields); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// checkTakes asserts that each put in puts and each update in updates
// passes the check.
func checkTakes(t *testing.T, a *schema.Application, puts, updates []string) {
	t.Helper()
	for _, ok := range puts {
		if err := a.CheckPut("music", []byte(ok)); err != nil {
			t.Errorf("CheckPut(%s): %v", ok, err)
		}
	}
	for _, ok := range updates {
		if err := a.CheckUpdate("music", []byte(ok)); err != nil {
			t.Errorf("CheckUpdate(%s): %v", ok, err)
		}
	}
}

// checkRefuses asserts that each put is a *CheckError of its field, wanting
// what it says.
func checkRefuses(t *testing.T, a *schema.Application, bad []struct{ fields, field, want string }) {
	t.Helper()
	checkRefusesOf(t, a.CheckPut, bad)
}

// checkRefusesOf asserts that check (CheckPut or CheckUpdate) makes each of
// bad's fields of a music document a *CheckError of its field, wanting what
// it says.
func checkRefusesOf(t *testing.T, check func(string, []byte) error, bad []struct{ fields, field, want string }) {
	t.Helper()
	for _, b := range bad {
		err := check("music", []byte(b.fields))
		var ce *schema.CheckError
		if !errors.As(err, &ce) || ce.Field != b.field || !strings.Contains(ce.Want, b.want) {
			t.Errorf("check(%s) = %v; want field %q wanting %q", b.fields, err, b.field, b.want)
		}
	}
}

// TestCheckUpdate_MatchOnMap: Vespa takes match on a map field
// (document/src/main/java/com/yahoo/document/json/readers/MapReader.java,
// createMapUpdate, for arrays, weighted sets and maps).
func TestCheckUpdate_MatchOnMap(t *testing.T) {
	checkTakes(t, checkApp(t), nil, []string{`{"counts":{"match":{"element":"x","increment":1}}}`})
}

// TestCheckPut_TensorWrapperMembers: as TensorReader.fillTensor reads them,
// "values" of a dense tensor may be a hex string, and "cells" with a number
// (not an object or array) is a label of the short form {"label": value}.
func TestCheckPut_TensorWrapperMembers(t *testing.T) {
	a := checkApp(t)
	checkTakes(t, a, []string{
		`{"embedding":{"values":"3f8000003f8000003f800000"}}`,
		`{"cats":{"cells":2}}`, `{"cats":{"cells":2,"type":3}}`,
	}, nil)
	checkRefuses(t, a, []struct{ fields, field, want string }{
		{`{"embedding":{"values":"3f800000"}}`, "embedding", "24 hex digits"},
		{`{"cats":{"cells":"x"}}`, "cats{cells}", "a number"},
	})
}

// TestCheck_NumberAndBoolText: Vespa reads a bool with
// Boolean.parseBoolean (any case) and a float, a double or an arithmetic
// update's operand with Float.parseFloat or Double.parseDouble, which trim
// blanks and take a trailing f or d (document/src/main/java/com/yahoo/
// document/datatypes/BoolFieldValue.java, DoubleFieldValue.java;
// json/readers/SingleValueReader.java), and a tensor cell's text as
// JsonFormat.decodeNumberString does, "-nan" and "+nan" too.
func TestCheck_NumberAndBoolText(t *testing.T) {
	checkTakes(t, checkApp(t), []string{
		`{"live":"TRUE"}`, `{"live":"False"}`,
		`{"rating":"1.5f"}`, `{"rating":" 2.5 "}`, `{"rating":"7d"}`, `{"rating":"Inf"}`,
		`{"embedding":["-nan","+NaN","-Inf"]}`, `{"cats":{"a":"-nan"}}`,
	}, []string{`{"year":{"increment":"1d"}}`})
}

// TestCheckPut_RawAsVespaDecodesIt: Vespa decodes a raw field with Java's
// MIME base64 decoder (document/src/main/java/com/yahoo/document/
// datatypes/Raw.java), which skips what is not base64 and takes a missing
// padding, but not one lone character in the last group nor data after
// the padding; it reads the text of any scalar, a number's too.
func TestCheckPut_RawAsVespaDecodesIt(t *testing.T) {
	a := checkApp(t)
	checkTakes(t, a, []string{
		`{"blob":"aGVs bG8="}`, `{"blob":"aGVs\nbG8=\n"}`, `{"blob":""}`, `{"blob":"aGVsbG8"}`,
		`{"blob":"aGVsbG8=!"}`, `{"blob":1234}`,
	}, nil)
	checkRefuses(t, a, []struct{ fields, field, want string }{
		{`{"blob":"aGVs=bG8="}`, "blob", "base64"},
		{`{"blob":"a==="}`, "blob", "base64"},
		{`{"blob":"aGVsbA=x"}`, "blob", "base64"},
		{`{"blob":"aGVsbG8=a"}`, "blob", "base64"},
		{`{"blob":12345}`, "blob", "base64"}, {`{"blob":["aGVs"]}`, "blob", "base64"},
	})
	// What Go encodes, padded or not, broken into lines or not, passes.
	var puts []string
	for n := range 12 {
		b := []byte(strings.Repeat("\xfb\xff", n)[:n])
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			s := enc.EncodeToString(b)
			puts = append(puts, `{"blob":"`+s+`"}`, `{"blob":"`+strings.Join(strings.SplitAfter(s, "+"), `\r\n`)+`"}`)
		}
	}
	checkTakes(t, a, puts, nil)
}

// TestCheckPut_WeightedSetArray: Vespa reads a weighted set from an object
// only (document/src/main/java/com/yahoo/document/json/readers/
// WeightedSetReader.java: expectObjectStart); an array was let through.
func TestCheckPut_WeightedSetArray(t *testing.T) {
	checkRefuses(t, checkApp(t), []struct{ fields, field, want string }{
		{`{"scores":[["a",1]]}`, "scores", "weightedset<string> as an object of weights"},
	})
}

// TestCheckError_LongUnicodeValue: the value an error quotes is cut at a
// character, never inside one.
func TestCheckError_LongUnicodeValue(t *testing.T) {
	err := checkApp(t).CheckPut("music", []byte(`{"year":"`+strings.Repeat("é", 40)+`"}`))
	var ce *schema.CheckError
	if !errors.As(err, &ce) || !utf8.ValidString(ce.Got) || !strings.HasSuffix(ce.Got, "é…") {
		t.Errorf("CheckPut of a long string of é for an int: %v (Got %q); want valid UTF-8 ending é…", err, ce.Got)
	}
}

// TestCheckPut_FieldPathIsNoField: a put's field names are names, not
// paths: Vespa's StructReader looks "year.x" up as a field and refuses it.
// The check took it for year and checked its value against year's type.
func TestCheckPut_FieldPathIsNoField(t *testing.T) {
	checkRefuses(t, checkApp(t), []struct{ fields, field, want string }{
		{`{"year.x":1}`, "year.x", "a field of music"},
		{`{"counts{x}":1}`, "counts{x}", "a field of music"},
		{`{"tags[0]":"a"}`, "tags[0]", "a field of music"},
	})
}

// TestCheckPut_PositionMembers: a position object is read as Vespa's
// GeoPositionReader reads it: lat (or latitude, or y) and lng (or
// longitude, or x), each a number, and nothing else. Anything was let
// through.
func TestCheckPut_PositionMembers(t *testing.T) {
	a := checkApp(t)
	checkTakes(t, a, []string{
		`{"where":{"x":-122000000,"y":37400000}}`, `{"where":{"latitude":"1.5","longitude":2}}`, `{"where":{"lat":1,"x":2}}`,
	}, nil)
	checkRefuses(t, a, []struct{ fields, field, want string }{
		{`{"where":{"lat":1}}`, "where", "lng"},
		{`{"where":{"lng":1}}`, "where", "lat"},
		{`{"where":{"lat":1,"lng":2,"z":3}}`, "where.z", "lat"},
		{`{"where":{"lat":"north","lng":2}}`, "where.lat", "a number"},
		{`{"where":{"lat":[1],"lng":2}}`, "where.lat", "a number"},
	})
}
