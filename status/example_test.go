package status_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vkbench/vkbench/status"
)

func ExampleNew() {
	lookup := func(name string) error {
		if name == "" {
			return status.InvalidArgument // a bare code: no allocation
		}
		return status.Newf(status.NotFound, "kernels: no kernel named %q", name)
	}
	fmt.Println(lookup(""))
	err := lookup("gemm")
	fmt.Println(err)
	fmt.Println(status.CodeOf(err), status.Message(err))
	fmt.Println(errors.Is(err, status.NotFound))
	// Output:
	// INVALID_ARGUMENT
	// NOT_FOUND: kernels: no kernel named "gemm"
	// NOT_FOUND kernels: no kernel named "gemm"
	// true
}

func ExampleWrap() {
	compile := func() error {
		return fs.ErrNotExist
	}
	err := status.Wrap(compile(), status.Internal, "compile failed")
	fmt.Println(err)
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output:
	// INTERNAL: compile failed: file does not exist
	// true
}

func ExampleAnnotate() {
	compile := func(ok bool) error {
		if ok {
			return nil
		}
		return status.New(status.Internal, "compile failed")
	}
	build := func(ok bool) error {
		return status.Annotatef(compile(ok), "while building pipeline %q", "gemm")
	}
	tune := func(ok bool) error {
		return status.Annotate(build(ok), "while tuning")
	}
	fmt.Println(tune(true))
	fmt.Println(tune(false))
	// Output:
	// <nil>
	// INTERNAL: while tuning: while building pipeline "gemm": compile failed
}

func ExampleCodeOf() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range []error{
		nil,
		status.Aborted,
		fmt.Errorf("waiting on fence: %w", status.New(status.DeadlineExceeded, "timed out")),
		fmt.Errorf("tuning: %w", ctx.Err()),
		fs.ErrNotExist,
		errors.New("something else"),
	} {
		fmt.Println(status.CodeOf(err))
	}
	// Output:
	// OK
	// ABORTED
	// DEADLINE_EXCEEDED
	// CANCELLED
	// NOT_FOUND
	// UNKNOWN
}

func ExampleJoin() {
	err := status.Join(
		nil,
		status.New(status.ResourceExhausted, "candidate 1: out of device memory"),
		status.New(status.FailedPrecondition, "candidate 2: wrong result"),
	)
	fmt.Println(status.CodeOf(err))
	fmt.Println(err)
	// Output:
	// RESOURCE_EXHAUSTED
	// RESOURCE_EXHAUSTED: 2 errors: [RESOURCE_EXHAUSTED: candidate 1: out of device memory] [FAILED_PRECONDITION: candidate 2: wrong result]
}

func ExamplePayload() {
	// VkFailure is what a Vulkan backend might attach.
	type VkFailure struct {
		Result int32
		Call   string
	}
	err := status.New(status.DataLoss, "vk: vkQueueSubmit: VK_ERROR_DEVICE_LOST")
	err = status.WithPayload(err, VkFailure{Result: -4, Call: "vkQueueSubmit"})
	err = fmt.Errorf("tuning gemm: %w", status.Annotate(err, "while waiting"))

	if f, ok := status.Payload[VkFailure](err); ok {
		fmt.Println(f.Call, f.Result)
	}
	// Output:
	// vkQueueSubmit -4
}

func ExampleSetMode() {
	defer status.SetMode(status.SetMode(status.ModeCode))
	err := status.Newf(status.NotFound, "never formatted: %d", 42)
	fmt.Printf("%v %T\n", err, err)

	status.SetMode(status.ModeMessages)
	err = status.Newf(status.NotFound, "formatted: %d", 42)
	fmt.Printf("%v %T\n", err, err)
	// Output:
	// NOT_FOUND status.Code
	// NOT_FOUND: formatted: 42 *status.Status
}

func ExampleParseCode() {
	c, err := status.ParseCode("FAILED_PRECONDITION")
	fmt.Println(uint32(c), c, err)
	_, err = status.ParseCode("BROKEN")
	fmt.Println(err)
	// Output:
	// 9 FAILED_PRECONDITION <nil>
	// INVALID_ARGUMENT: status: unknown code "BROKEN"
}
