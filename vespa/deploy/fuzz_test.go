package deploy

import "testing"

func FuzzDecodeSession(f *testing.F) {
	f.Add([]byte(`{"session-id":"3","activated":false,"message":"m","log":[{"time":1,"level":"WARNING","message":"w"}]}`))
	f.Add([]byte(`{"session-id":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := decodeSession(b); err == nil && s == nil {
			t.Fatal("nil session without error")
		}
	})
}
