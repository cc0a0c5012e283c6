//go:build !race

package workspace

const raceDetector = false
