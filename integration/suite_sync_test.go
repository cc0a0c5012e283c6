package integration

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// testSync covers the synchronous operations: get of a missing document
// (404), put, get, update, conditional put, update and remove (412 when the
// condition does not hold), update of a missing document with and without
// create, a field the schema does not have (400, which also proves the
// target learned the schema from the deploy), and remove.
func (s *suite) testSync(t *testing.T) {
	c, ctx, name := s.client, s.ctx, s.tg.Name()
	id := musicID(s.syncNamespace(), "sync-1")
	none := vespa.OperationOptions{}

	t.Run("get of a missing document is 404", func(t *testing.T) {
		_, err := c.Get(ctx, id, none)
		wantStatus(t, name, "get", err, http.StatusNotFound, vespa.ErrNotFound)
	})

	want := s.docs.song(7)
	want.Title = "viva la vida"
	t.Run("put then get", func(t *testing.T) {
		res, err := c.Put(ctx, id, want, none)
		if err != nil {
			t.Fatalf("[%s] put %s: %v", name, id, err)
		}
		if res.Status != http.StatusOK {
			t.Errorf("[%s] put %s: status %d, want 200", name, id, res.Status)
		}
		got := getSong(t, s, id)
		compareSong(t, name, id.String(), got, want)
	})

	t.Run("update assigns, increments and adds", func(t *testing.T) {
		u := vespa.NewUpdate().Assign("title", "lovers in japan").Increment("popularity", 5).Add("tags", []string{"live"})
		if _, err := c.Update(ctx, id, u, none); err != nil {
			t.Fatalf("[%s] update %s: %v", name, id, err)
		}
		want.Title = "lovers in japan"
		want.Popularity += 5
		want.Tags = append(want.Tags, "live")
		compareSong(t, name, id.String(), getSong(t, s, id), want)
	})

	t.Run("a condition that does not hold is 412", func(t *testing.T) {
		notMet := vespa.OperationOptions{Condition: "music.popularity == 12345"}
		_, err := c.Put(ctx, id, s.docs.song(8), notMet)
		wantStatus(t, name, "conditional put", err, http.StatusPreconditionFailed, vespa.ErrConditionNotMet)
		_, err = c.Update(ctx, id, vespa.NewUpdate().Assign("year", 1900), notMet)
		wantStatus(t, name, "conditional update", err, http.StatusPreconditionFailed, vespa.ErrConditionNotMet)
		_, err = c.Remove(ctx, id, notMet)
		wantStatus(t, name, "conditional remove", err, http.StatusPreconditionFailed, vespa.ErrConditionNotMet)
		compareSong(t, name, id.String(), getSong(t, s, id), want)
	})

	t.Run("a condition that holds applies", func(t *testing.T) {
		met := vespa.OperationOptions{Condition: "music.title == \"lovers in japan\""}
		if _, err := c.Update(ctx, id, vespa.NewUpdate().Assign("year", 2008), met); err != nil {
			t.Fatalf("[%s] conditional update %s: %v", name, id, err)
		}
		want.Year = 2008
		compareSong(t, name, id.String(), getSong(t, s, id), want)
	})

	t.Run("update of a missing document needs create", func(t *testing.T) {
		missing := musicID(s.syncNamespace(), "sync-created")
		u := vespa.NewUpdate().Assign("title", "created by update").Assign("year", 2001)
		if _, err := c.Update(ctx, missing, u, none); err != nil {
			t.Fatalf("[%s] update of missing %s: %v, want success without effect", name, missing, err)
		}
		_, err := c.Get(ctx, missing, none)
		wantStatus(t, name, "get after update without create", err, http.StatusNotFound, vespa.ErrNotFound)

		if _, err := c.Update(ctx, missing, u, vespa.OperationOptions{Create: true}); err != nil {
			t.Fatalf("[%s] update with create %s: %v", name, missing, err)
		}
		got := getSong(t, s, missing)
		if got.Title != "created by update" || got.Year != 2001 {
			t.Errorf("[%s] created document %s = %+v, want title and year from the update", name, missing, got)
		}
		if _, err := c.Remove(ctx, missing, none); err != nil {
			t.Errorf("[%s] remove %s: %v", name, missing, err)
		}
	})

	t.Run("a field the schema lacks is 400", func(t *testing.T) {
		other := musicID(s.syncNamespace(), "sync-bad-field")
		_, err := c.Put(ctx, other, map[string]any{"title": "x", "no_such_field": 1}, none)
		wantStatus(t, name, "put with an unknown field", err, http.StatusBadRequest, vespa.ErrBadRequest)
	})

	t.Run("remove then get is 404", func(t *testing.T) {
		if _, err := c.Remove(ctx, id, none); err != nil {
			t.Fatalf("[%s] remove %s: %v", name, id, err)
		}
		_, err := c.Get(ctx, id, none)
		wantStatus(t, name, "get after remove", err, http.StatusNotFound, vespa.ErrNotFound)
		if _, err := c.Remove(ctx, id, none); err != nil {
			t.Errorf("[%s] remove of a removed document: %v, want success", name, err)
		}
	})
}

// getSong reads id and decodes it into a song.
func getSong(t *testing.T, s *suite, id vespa.DocumentID) song {
	t.Helper()
	got, _, err := vespa.GetInto[song](s.ctx, s.client, id, vespa.OperationOptions{})
	if err != nil {
		t.Fatalf("[%s] get %s: %v", s.tg.Name(), id, err)
	}
	return got
}

// wantStatus fails t unless err is a *vespa.Error with status and matches
// sentinel.
func wantStatus(t *testing.T, target, what string, err error, status int, sentinel error) {
	t.Helper()
	var ve *vespa.Error
	switch {
	case err == nil:
		t.Errorf("[%s] %s: no error, want %d", target, what, status)
	case !errors.As(err, &ve):
		t.Errorf("[%s] %s: %v (%T), want a *vespa.Error with status %d", target, what, err, err, status)
	case ve.StatusCode() != status || !errors.Is(err, sentinel):
		t.Errorf("[%s] %s: %v (status %d), want status %d matching %v", target, what, err, ve.StatusCode(), status, sentinel)
	}
}

// compareSong fails t unless got holds want's fields; embeddings compare
// exactly, as float32.
func compareSong(t *testing.T, target, id string, got, want song) {
	t.Helper()
	if got.Title != want.Title || got.Year != want.Year || got.Popularity != want.Popularity || !slices.Equal(got.Tags, want.Tags) {
		t.Errorf("[%s] %s: got title %q year %d popularity %d tags %q, want %q %d %d %q", target, id,
			got.Title, got.Year, got.Popularity, got.Tags, want.Title, want.Year, want.Popularity, want.Tags)
	}
	if !slices.Equal(got.Embedding.Values, want.Embedding.Values) {
		t.Errorf("[%s] %s: embedding differs (%d values, want %d)", target, id, len(got.Embedding.Values), len(want.Embedding.Values))
	}
}

// decodeSong decodes the fields of a document.
func decodeSong(fields json.RawMessage) (song, error) {
	var s song
	err := json.Unmarshal(fields, &s)
	return s, err
}
