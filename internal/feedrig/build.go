package feedrig

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
)

// FeedPackage is the feed command's import path.
const FeedPackage = "github.com/govespa/govespa/examples/feed"

// BuildFeed builds the feed command ([FeedPackage]) into dir, as dir/feed,
// and returns that path. The go command's output goes to stderr.
func BuildFeed(ctx context.Context, dir string, stderr io.Writer) (string, error) {
	bin := filepath.Join(dir, "feed")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, FeedPackage) //nolint:gosec // G204: the output path is the caller's own directory
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building the feed command: %w", err)
	}
	return bin, nil
}
