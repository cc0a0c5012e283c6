package jdisc

import (
	"archive/tar"
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// BaseImage is the Java runtime image the harness image is built on: Debian
// bookworm (debootstrap --variant=minbase) with openjdk-17-jre-headless,
// imported into the local daemon by .ci/jre-image, since no image registry
// is reachable from the machines it runs on. GOVESPA_JDISC_BASE_IMAGE names
// another (any image with java 17 or later on PATH).
const BaseImage = "govespa/jre17:bookworm"

// ErrNoBaseImage is returned (wrapped) by [BuildImage] when the daemon does
// not have the base image.
var ErrNoBaseImage = errors.New("jdisc: the base image is not present (build it with: bash .ci/jre-image)")

// ImagePort is the port the harness listens on inside its image.
const ImagePort = 8080

// BuildImage returns the name of a local image that runs the harness of b:
// the base image with b's jar and the jars of its class path in
// /harness/lib, started as
//
//	harness.Main --schemas DIR --port 8080 --cluster NAME
//
// with the arguments given to the container. It builds the image unless the
// daemon has it already (the tag is b's source hash), through the Docker
// API, so that no registry is ever asked: the base image must be local.
func BuildImage(ctx context.Context, b *Built) (name string, err error) {
	hash, err := SourceHash()
	if err != nil {
		return "", err
	}
	base := BaseImage
	if v := os.Getenv("GOVESPA_JDISC_BASE_IMAGE"); v != "" {
		base = v
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", fmt.Errorf("jdisc: %w", err)
	}
	defer func() { _ = cli.Close() }()
	name = "govespa/jdisc-harness:" + hash
	if _, err := cli.ImageInspect(ctx, name); err == nil {
		return name, nil
	} else if !errdefs.IsNotFound(err) {
		return "", fmt.Errorf("jdisc: inspecting %s: %w", name, err)
	}
	if _, err := cli.ImageInspect(ctx, base); err != nil {
		if errdefs.IsNotFound(err) {
			return "", fmt.Errorf("%w: %s", ErrNoBaseImage, base)
		}
		return "", fmt.Errorf("jdisc: inspecting %s: %w", base, err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeImageContext(pw, b, base)) }()
	res, err := cli.ImageBuild(ctx, pr, client.ImageBuildOptions{
		Tags: []string{name}, Remove: true, ForceRemove: true, Version: build.BuilderV1,
		Labels: map[string]string{"org.govespa.jdisc.source": hash},
	})
	if err != nil {
		_ = pr.CloseWithError(err)
		return "", fmt.Errorf("jdisc: building %s: %w", name, err)
	}
	defer res.Body.Close()
	if err := buildOutcome(res.Body); err != nil {
		return "", fmt.Errorf("jdisc: building %s: %w", name, err)
	}
	return name, nil
}

// writeImageContext writes the build context: a Dockerfile and the jars.
func writeImageContext(w io.Writer, b *Built, base string) error {
	tw := tar.NewWriter(w)
	jars := append([]string{b.Jar}, filepath.SplitList(b.ClassPath)...)
	dockerfile := "FROM " + base + "\n" +
		"COPY lib /harness/lib\n" +
		"WORKDIR /harness\n" +
		"ENTRYPOINT [\"java\", \"-Xmx1g\", \"-cp\", \"/harness/lib/*\", \"harness.Main\"]\n"
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, dockerfile); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, jar := range jars {
		// Jars of different artifacts may share a file name: the index keeps
		// each; the class path is the directory, so order does not matter.
		base := filepath.Base(jar)
		if seen[base] {
			base = fmt.Sprintf("%d-%s", i, base)
		}
		seen[base] = true
		if err := addFile(tw, jar, "lib/"+base); err != nil {
			return err
		}
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, path, name string) error {
	f, err := os.Open(path) //nolint:gosec // a jar of the harness's own build
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: st.Size(), ModTime: st.ModTime()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// buildOutcome reads the daemon's build messages (one JSON object a line)
// and returns the first error one names, with the last lines of output.
func buildOutcome(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []string
	for sc.Scan() {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Error != "" {
			return fmt.Errorf("%s\n%s", m.Error, strings.Join(out, ""))
		}
		if m.Stream != "" {
			out = append(out, m.Stream)
			if len(out) > 20 {
				out = out[1:]
			}
		}
	}
	return sc.Err()
}
