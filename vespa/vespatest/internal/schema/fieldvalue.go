package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// The value readers of the types Vespa's JSON reader (document module,
// json/readers) takes in more than one form.

// stringOf is the text of a scalar JSON value as Vespa's JSON reader takes
// it for a string-like field: a string's contents, or a number's or a
// boolean's text (TokenBuffer.currentText), so 5 is "5".
func stringOf(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("expected a string, got %s", jsonx.Clip(raw))
		}
		return s, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err == nil {
		switch v.(type) {
		case float64, bool:
			return string(raw), nil
		}
	}
	return "", fmt.Errorf("expected a string, got %s", jsonx.Clip(raw))
}

// intInRange checks the canonical integer text v against the range of the
// integer type name, with the messages of Java's parsers: Integer.parseInt
// and Long.parseLong ('For input string: "v"'), Byte.parseByte ("Value out
// of range.").
func intInRange(name, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("For input string: \"%s\"", v)
	}
	switch name {
	case "int":
		if n < math.MinInt32 || n > math.MaxInt32 {
			return fmt.Errorf("For input string: \"%s\"", v)
		}
	case "byte":
		if n < math.MinInt8 || n > math.MaxInt8 {
			return fmt.Errorf("Value out of range. Value:\"%s\" Radix:10", v)
		}
	}
	return nil
}

// rawOf reads a raw field's base64 text as Vespa's JSON reader does, with
// Java's MIME decoder (characters outside the alphabet are skipped), and
// returns it as a get writes it back: standard base64 with padding.
func rawOf(s string) (string, error) {
	var clean strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			break // padding ends the data
		}
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
			clean.WriteByte(c)
		}
	}
	text := clean.String()
	if len(text)%4 == 1 {
		return "", fmt.Errorf("Last unit does not have enough valid bits")
	}
	b, err := base64.RawStdEncoding.DecodeString(text)
	if err != nil {
		return "", fmt.Errorf("Illegal base64 text: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// mapFromEntries turns the array form of a map, [{"key": k, "value": v}],
// into the object form.
func mapFromEntries(raw []byte) (json.RawMessage, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("expected a map object, got %s", jsonx.Clip(raw))
	}
	var out jsonx.Object
	for _, e := range entries {
		obj, err := jsonx.ParseObject(e)
		if err != nil {
			return nil, fmt.Errorf("expected a map object, got %s", jsonx.Clip(raw))
		}
		k, kok := obj.Get("key")
		v, vok := obj.Get("value")
		if !kok || !vok {
			return nil, fmt.Errorf("a map entry needs 'key' and 'value', got %s", jsonx.Clip(e))
		}
		key, err := stringOf(k)
		if err != nil {
			return nil, err
		}
		out = out.Set(key, v)
	}
	return out.Marshal(), nil
}

// positionOf reads a position as Vespa's JSON reader does (document
// json/readers GeoPositionReader: lat/latitude and lng/longitude in degrees,
// x and y in micro-degrees, rounded; PositionDataType.fromString for the
// "N37.4;W121.9" and "x;y" text forms, truncated) and returns it as a get
// writes it (JsonSerializationHelper.serializeGeoPos): {"lat": y·1e-6,
// "lng": x·1e-6}.
func positionOf(raw json.RawMessage) (json.RawMessage, bool, error) {
	raw = bytes.TrimSpace(raw)
	var x, y int32
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, err
		}
		var err error
		if x, y, err = positionFromString(s); err != nil {
			return nil, false, err
		}
	} else {
		obj, err := jsonx.ParseObject(raw)
		if err != nil {
			return nil, false, fmt.Errorf("Expected start of JSON object, got %s", jsonx.Clip(raw))
		}
		var lat, lng *float64
		for _, m := range obj {
			text, err := stringOf(m.Val)
			if err != nil {
				text = string(m.Val)
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
			if err != nil {
				return nil, false, fmt.Errorf("Expected a number but got '%s", text)
			}
			switch m.Key {
			case "lat", "latitude":
				f *= 1e6
				lat = &f
			case "lng", "longitude":
				f *= 1e6
				lng = &f
			case "x":
				lng = &f
			case "y":
				lat = &f
			default:
				return nil, false, fmt.Errorf("Unexpected attribute %s in geo position field", m.Key)
			}
		}
		if lat == nil {
			return nil, false, fmt.Errorf("Missing 'lat' attribute in geo position field")
		}
		if lng == nil {
			return nil, false, fmt.Errorf("Missing 'lng' attribute in geo position field")
		}
		y, x = javaIntRound(*lat), javaIntRound(*lng)
	}
	out := jsonx.Object{
		{Key: "lat", Val: json.RawMessage(microDegrees(y))},
		{Key: "lng", Val: json.RawMessage(microDegrees(x))},
	}
	return out.Marshal(), true, nil
}

// javaIntRound is (int) Math.round(f): half up, saturated to int32.
func javaIntRound(f float64) int32 {
	r := math.Floor(f + 0.5)
	switch {
	case r > math.MaxInt32:
		return math.MaxInt32
	case r < math.MinInt32:
		return math.MinInt32
	}
	return int32(r)
}

// microDegrees writes v·1e-6 as a JSON number.
func microDegrees(v int32) string {
	return strconv.FormatFloat(float64(v)/1e6, 'f', -1, 64)
}

// positionFromString reads "N37.4;W121.9" (degrees with a hemisphere
// letter; PositionDataType.fromString's DegreesParser, decimal degrees
// only) or "x;y" (micro-degrees).
func positionFromString(s string) (x, y int32, err error) {
	a, b, ok := strings.Cut(s, ";")
	if !ok {
		return 0, 0, fmt.Errorf("Could not parse '%s' as geo coordinates", s)
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if xi, err1 := strconv.ParseInt(a, 10, 32); err1 == nil {
		if yi, err2 := strconv.ParseInt(b, 10, 32); err2 == nil {
			return int32(xi), int32(yi), nil
		}
	}
	var lat, lng *float64
	for _, part := range []string{a, b} {
		if part == "" {
			return 0, 0, fmt.Errorf("Could not parse '%s' as geo coordinates", s)
		}
		v, err := strconv.ParseFloat(part[1:], 64)
		if err != nil {
			return 0, 0, fmt.Errorf("Could not parse '%s' as geo coordinates", s)
		}
		switch part[0] {
		case 'N', 'n':
		case 'S', 's':
			v = -v
		case 'E', 'e':
		case 'W', 'w':
			v = -v
		default:
			return 0, 0, fmt.Errorf("Could not parse '%s' as geo coordinates", s)
		}
		switch part[0] {
		case 'N', 'n', 'S', 's':
			lat = &v
		default:
			lng = &v
		}
	}
	if lat == nil || lng == nil {
		return 0, 0, fmt.Errorf("Could not parse '%s' as geo coordinates", s)
	}
	// (int)(d * 1000000): truncation toward zero
	return int32(*lng * 1e6), int32(*lat * 1e6), nil
}
