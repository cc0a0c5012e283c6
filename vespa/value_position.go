package vespa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Position is the value of a position field: a latitude and longitude in
// degrees. It is written as Vespa's document JSON writes it, {"lat": 37.4,
// "lng": -122.0}, and read from that, from {"latitude": …, "longitude": …},
// from {"x": …, "y": …} in millionths of a degree (how a query result may
// render a position), and from the text form "N37.4;W122.0".
type Position struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// MarshalJSON writes {"lat": …, "lng": …}.
func (p Position) MarshalJSON() ([]byte, error) {
	if math.IsNaN(p.Lat) || math.IsNaN(p.Lng) || math.IsInf(p.Lat, 0) || math.IsInf(p.Lng, 0) {
		return nil, fmt.Errorf("vespa: position %v, %v is not a number", p.Lat, p.Lng)
	}
	b := []byte(`{"lat":`)
	b = strconv.AppendFloat(b, p.Lat, 'g', -1, 64)
	b = append(b, `,"lng":`...)
	b = strconv.AppendFloat(b, p.Lng, 'g', -1, 64)
	return append(b, '}'), nil
}

// UnmarshalJSON reads any of the forms of [Position]. JSON null leaves p
// as it is, as encoding/json does for a value it has no Unmarshaler for.
func (p *Position) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("vespa: position: %w", err)
		}
		return p.parseText(s)
	}
	var o struct {
		Lat, Lng, Latitude, Longitude *float64
		X, Y                          *float64
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return fmt.Errorf("vespa: position: %w", err)
	}
	switch {
	case o.Lat != nil && o.Lng != nil:
		*p = Position{*o.Lat, *o.Lng}
	case o.Latitude != nil && o.Longitude != nil:
		*p = Position{*o.Latitude, *o.Longitude}
	case o.X != nil && o.Y != nil:
		*p = Position{*o.Y / 1e6, *o.X / 1e6}
	default:
		return fmt.Errorf("vespa: position %s: want lat and lng, latitude and longitude, or x and y", quoteJSON(data))
	}
	return nil
}

// parseText reads "N37.4;W122.0" (either order, hemisphere letters first).
func (p *Position) parseText(s string) error {
	a, b, ok := strings.Cut(s, ";")
	if !ok {
		return fmt.Errorf("vespa: position %q: want N<lat>;E<lng>", s)
	}
	var lat, lng float64
	var haveLat, haveLng bool
	for _, part := range []string{a, b} {
		part = strings.TrimSpace(part)
		if part == "" {
			return fmt.Errorf("vespa: position %q: empty coordinate", s)
		}
		v, err := strconv.ParseFloat(part[1:], 64)
		if err != nil {
			return fmt.Errorf("vespa: position %q: %w", s, err)
		}
		switch part[0] {
		case 'N', 'n':
			lat, haveLat = v, true
		case 'S', 's':
			lat, haveLat = -v, true
		case 'E', 'e':
			lng, haveLng = v, true
		case 'W', 'w':
			lng, haveLng = -v, true
		default:
			return fmt.Errorf("vespa: position %q: a coordinate starts with N, S, E or W", s)
		}
	}
	if !haveLat || !haveLng {
		return fmt.Errorf("vespa: position %q: want one latitude and one longitude", s)
	}
	*p = Position{lat, lng}
	return nil
}

// quoteJSON quotes the start of a JSON value for an error.
func quoteJSON(data []byte) string {
	const most = 64
	if len(data) > most {
		return strconv.Quote(string(data[:most])) + "…"
	}
	return strconv.Quote(string(data))
}
