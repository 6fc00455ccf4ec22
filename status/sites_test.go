package status_test

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/vkbench/vkbench/status"
)

// The functions below make the statuses of the golden tests, and the line
// of each call appears in testdata/status/*.golden. Add new functions at
// the end; after moving any line, check the change and rewrite the golden
// files with
//
//	go test ./status -run TestFormatGolden -update

// vkFailure stands for the payload the vk package attaches.
type vkFailure struct {
	Result int32
	Call   string
}

func siteShaderMissing() error {
	return status.New(status.NotFound, `shader "gemm.spv" missing`)
}

func siteCompile() error {
	return status.Wrap(siteShaderMissing(), status.Internal, "compile failed")
}

func siteBuild() error {
	return status.Annotatef(siteCompile(), "while building pipeline %q", "gemm")
}

func siteTune() error {
	return status.Annotate(siteBuild(), "while tuning")
}

func siteForeign() error {
	return status.Annotate(fmt.Errorf("open cache: %w", fs.ErrNotExist), "while loading the cache")
}

func sitePayload() error {
	err := status.New(status.DataLoss, "vk: vkQueueSubmit: VK_ERROR_DEVICE_LOST")
	err = status.WithPayload(err, vkFailure{Result: -4, Call: "vkQueueSubmit"})
	return status.Annotate(err, "while waiting on the fence")
}

func siteJoin() error {
	return status.Join(
		siteShaderMissing(),
		status.Annotate(status.New(status.Internal, "bad SPIR-V"), "while compiling candidate 2"),
		errors.New("plain error"),
	)
}

func siteBareCode() error {
	return status.Annotate(status.Aborted, "while waiting")
}
