package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// AppDir writes an application package to a new temporary directory of tb
// and returns the directory: files maps a slash-separated path inside the
// package ("services.xml", "schemas/music.sd") to its content.
func AppDir(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// MusicSD is a schema of the document type music with one indexed string
// field, title.
const MusicSD = "schema music {\n document music {\n  field title type string { indexing: summary | index }\n }\n}\n"

// BucketSpacesApp returns an application package whose content cluster
// "music" holds the type music (MusicSD) in the default bucket space and
// artist (a string attribute name) in the global one, as global="true" in
// services.xml puts it.
func BucketSpacesApp() map[string]string {
	return map[string]string{
		"services.xml": `<services version="1.0">
  <container id="default" version="1.0"><document-api/></container>
  <content id="music" version="1.0">
    <min-redundancy>1</min-redundancy>
    <documents>
      <document type="music" mode="index"/>
      <document type="artist" mode="index" global="true"/>
    </documents>
  </content>
</services>`,
		"schemas/music.sd":  MusicSD,
		"schemas/artist.sd": "schema artist {\n document artist {\n  field name type string { indexing: summary | attribute }\n }\n}\n",
	}
}
