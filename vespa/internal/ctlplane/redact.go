package ctlplane

import "fmt"

// FormatSafe writes s, a text form of a value that holds no secret, for any
// verb: %#v, %v, %+v and %s write it as it is, %q quotes it, %x and %X
// hex-encode it, flags and widths apply as they do to a string. Types that
// hold a secret (a key, a token) implement fmt.Formatter with it, so that no
// verb reaches their fields through reflection.
func FormatSafe(f fmt.State, verb rune, s string) {
	if verb == 'v' {
		// %#v of a string would add quotes; the text form is already Go-like.
		fmt.Fprint(f, s)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s)
}

// String describes the transport without its credentials.
func (t Transport) String() string {
	auth := "none"
	switch {
	case t.Sign != nil:
		auth = "signed [redacted]"
	case t.Token != "":
		auth = "access token [redacted]"
	}
	return "ctlplane.Transport{Pkg:" + t.Pkg + ", Auth:" + auth + "}"
}

// Format prints [Transport.String] for every verb.
func (t Transport) Format(f fmt.State, verb rune) { FormatSafe(f, verb, t.String()) }
