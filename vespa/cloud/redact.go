package cloud

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// redacted stands for a secret in the text form of a value.
const redacted = "[redacted]"

// formatSafe writes s, a text form of a value that holds no secret, for any
// verb: %#v, %v, %+v and %s write it as it is, %q quotes it, %x and %X
// hex-encode it, flags and widths apply as they do to a string. Every type of
// this package that holds a secret (a key, a token) implements fmt.Formatter
// with it, so that no verb reaches its fields: without that, %#v would print
// them through reflection, %x would hex-encode a []byte key, and a verb the
// type's String does not serve (%d on a struct) would print it whole.
func formatSafe(f fmt.State, verb rune, s string) { ctlplane.FormatSafe(f, verb, s) }

// secretText is the text form of a secret field: redacted when set, "" when
// not (an empty secret is worth seeing, and gives nothing away).
func secretText(set bool) string {
	if set {
		return redacted
	}
	return `""`
}

// String describes the token without its secret value, such as
// cloud.Token{ID:"ci", Value:[redacted], Fingerprint:"…", Expiration:…}.
// It has a value receiver so that a copy of a Token prints the same way.
func (t Token) String() string {
	exp := "none"
	if !t.Expiration.IsZero() {
		exp = t.Expiration.UTC().Format("2006-01-02T15:04:05Z")
	}
	return fmt.Sprintf("cloud.Token{ID:%s, Value:%s, Fingerprint:%s, Expiration:%s}",
		strconv.Quote(t.ID), secretText(t.Value != ""), strconv.Quote(t.Fingerprint), exp)
}

// Format prints [Token.String] for every verb (%v, %+v, %#v, %s, %q, %x...),
// so that no verb shows the secret value.
func (t Token) Format(f fmt.State, verb rune) { formatSafe(f, verb, t.String()) }

// LogValue logs [Token.String], so that structured loggers (such as
// slog.JSONHandler, which would marshal the fields) never see the secret.
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// String describes the key pair without the private key: the size of each
// part, such as cloud.KeyPair{CertificatePEM:[579 bytes], PrivateKeyPEM:[redacted]}.
// It has a value receiver so that a copy of a KeyPair prints the same way.
func (kp KeyPair) String() string {
	return fmt.Sprintf("cloud.KeyPair{CertificatePEM:[%d bytes], PrivateKeyPEM:%s}",
		len(kp.CertificatePEM), secretText(len(kp.PrivateKeyPEM) > 0))
}

// Format prints [KeyPair.String] for every verb (%v, %+v, %#v, %s, %q,
// %x...), so that no verb shows the private key.
func (kp KeyPair) Format(f fmt.State, verb rune) { formatSafe(f, verb, kp.String()) }

// LogValue logs [KeyPair.String], so that structured loggers never see the
// private key.
func (kp KeyPair) LogValue() slog.Value { return slog.StringValue(kp.String()) }

// String describes the options without the token or the private key.
func (o DataPlaneOptions) String() string {
	kp := "nil"
	if o.KeyPair != nil {
		kp = o.KeyPair.String()
	}
	return fmt.Sprintf("cloud.DataPlaneOptions{Cluster:%s, Token:%s, KeyPair:%s, CertificateFile:%s, PrivateKeyFile:%s, Options:[%d options]}",
		strconv.Quote(o.Cluster), secretText(o.Token != ""), kp, strconv.Quote(o.CertificateFile),
		strconv.Quote(o.PrivateKeyFile), len(o.Options))
}

// Format prints [DataPlaneOptions.String] for every verb (%v, %+v, %#v, %s,
// %q, %x...), so that no verb shows the token or the private key.
func (o DataPlaneOptions) Format(f fmt.State, verb rune) { formatSafe(f, verb, o.String()) }

// LogValue logs [DataPlaneOptions.String], so that structured loggers never
// see the token or the private key.
func (o DataPlaneOptions) LogValue() slog.Value { return slog.StringValue(o.String()) }

// String describes the client: its application, control-plane URL and kind
// of authentication, never the key, the token or a signature.
func (c Client) String() string {
	base := "<nil>"
	if c.base != nil {
		base = c.base.String()
	}
	return fmt.Sprintf("cloud.Client{Application:%s, URL:%s, Auth:%s}", c.app, base, c.auth)
}

// Format prints [Client.String] for every verb (%v, %+v, %#v, %s, %q,
// %x...), so that no verb reaches the credentials the client holds.
func (c Client) Format(f fmt.State, verb rune) { formatSafe(f, verb, c.String()) }

// LogValue logs [Client.String].
func (c Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String describes the signer without its key.
func (s signer) String() string {
	return "cloud.signer{KeyID:" + strconv.Quote(s.keyID) + ", Key:" + redacted + "}"
}

// Format prints [signer.String] for every verb.
func (s signer) Format(f fmt.State, verb rune) { formatSafe(f, verb, s.String()) }

// String describes the collected options without the API key or the token.
func (c config) String() string {
	var b strings.Builder
	b.WriteString("cloud.config{")
	if c.endpoint != nil {
		fmt.Fprintf(&b, "Endpoint:%s, ", c.endpoint)
	}
	fmt.Fprintf(&b, "APIKey:%s, AccessToken:%s, Poll:%s, UserAgent:%s}",
		secretText(len(c.apiKey) > 0), secretText(c.accessToken != ""), c.Poll, strconv.Quote(c.UserAgent))
	return b.String()
}

// Format prints [config.String] for every verb.
func (c config) Format(f fmt.State, verb rune) { formatSafe(f, verb, c.String()) }
