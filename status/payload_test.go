package status_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vkbench/vkbench/status"
)

type otherPayload struct{ n int }

func (p otherPayload) String() string { return fmt.Sprint("other ", p.n) }

func TestPayload(t *testing.T) {
	lost := vkFailure{Result: -4, Call: "vkQueueSubmit"}
	err := status.WithPayload(status.New(status.DataLoss, "device lost"), lost)
	err = status.Annotate(err, "while waiting")

	if got, ok := status.Payload[vkFailure](err); !ok || got != lost {
		t.Errorf("Payload[vkFailure] = %v, %v; want %v, true", got, ok, lost)
	}
	if got, ok := status.Payload[otherPayload](err); ok {
		t.Errorf("Payload[otherPayload] = %v, true; want none", got)
	}
	if got, ok := status.Payload[*vkFailure](err); ok {
		t.Errorf("Payload[*vkFailure] = %v, true; want none: the type must match", got)
	}
	if got := err.Error(); got != "DATA_LOSS: while waiting: device lost" {
		t.Errorf("Error() = %q: a payload changed the text", got)
	}

	// Through Wrap, fmt.Errorf and Join.
	outer := status.Join(errForeign, fmt.Errorf("tune: %w", status.Wrap(err, status.Aborted, "gave up")))
	if got, ok := status.Payload[vkFailure](outer); !ok || got != lost {
		t.Errorf("Payload through Wrap, %%w and Join = %v, %v; want %v, true", got, ok, lost)
	}
	if _, ok := status.Payload[vkFailure](errForeign); ok {
		t.Error("Payload found something in a foreign error")
	}
	if _, ok := status.Payload[vkFailure](nil); ok {
		t.Error("Payload found something in nil")
	}
}

func TestPayloadMostRecentFirst(t *testing.T) {
	err := status.WithPayload(status.New(status.Internal, "x"), otherPayload{1})
	err = status.WithPayload(err, vkFailure{Call: "vkCreateDevice"})
	err = status.WithPayload(err, otherPayload{2})
	if got, _ := status.Payload[otherPayload](err); got.n != 2 {
		t.Errorf("Payload[otherPayload] = %v, want the last one attached", got)
	}
	if got, _ := status.Payload[vkFailure](err); got.Call != "vkCreateDevice" {
		t.Errorf("Payload[vkFailure] = %v, want the one attached", got)
	}
	// An interface type finds any payload that implements it.
	if got, ok := status.Payload[fmt.Stringer](err); !ok || got.String() != "other 2" {
		t.Errorf("Payload[fmt.Stringer] = %v, %v; want other 2", got, ok)
	}
}

func TestWithPayloadOther(t *testing.T) {
	err := status.WithPayload(errForeign, otherPayload{3})
	if status.CodeOf(err) != status.Unknown || !errors.Is(err, errForeign) {
		t.Errorf("WithPayload(foreign): CodeOf = %v, errors.Is(foreign) = %v", status.CodeOf(err), errors.Is(err, errForeign))
	}
	if got, ok := status.Payload[otherPayload](err); !ok || got.n != 3 {
		t.Errorf("Payload = %v, %v; want other 3", got, ok)
	}
	err = status.WithPayload(status.Unavailable, otherPayload{4})
	if status.CodeOf(err) != status.Unavailable || errors.Unwrap(err) != nil {
		t.Errorf("WithPayload(code): CodeOf = %v, Unwrap = %v", status.CodeOf(err), errors.Unwrap(err))
	}
	base := status.New(status.Internal, "x")
	if status.WithPayload(base, nil) != base {
		t.Error("WithPayload(err, nil) made a new error")
	}
	if !errors.Is(status.WithPayload(base, 1), base) {
		t.Error("errors.Is(with payload, base) = false")
	}
}
