package status_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/status"
)

// allCodes lists every code with its number and name, as IREE has them.
var allCodes = []struct {
	code  status.Code
	value uint32
	name  string
}{
	{status.OK, 0, "OK"},
	{status.Cancelled, 1, "CANCELLED"},
	{status.Unknown, 2, "UNKNOWN"},
	{status.InvalidArgument, 3, "INVALID_ARGUMENT"},
	{status.DeadlineExceeded, 4, "DEADLINE_EXCEEDED"},
	{status.NotFound, 5, "NOT_FOUND"},
	{status.AlreadyExists, 6, "ALREADY_EXISTS"},
	{status.PermissionDenied, 7, "PERMISSION_DENIED"},
	{status.ResourceExhausted, 8, "RESOURCE_EXHAUSTED"},
	{status.FailedPrecondition, 9, "FAILED_PRECONDITION"},
	{status.Aborted, 10, "ABORTED"},
	{status.OutOfRange, 11, "OUT_OF_RANGE"},
	{status.Unimplemented, 12, "UNIMPLEMENTED"},
	{status.Internal, 13, "INTERNAL"},
	{status.Unavailable, 14, "UNAVAILABLE"},
	{status.DataLoss, 15, "DATA_LOSS"},
	{status.Unauthenticated, 16, "UNAUTHENTICATED"},
	{status.Deferred, 17, "DEFERRED"},
	{status.Incompatible, 18, "INCOMPATIBLE"},
}

func TestCodeNames(t *testing.T) {
	for _, tt := range allCodes {
		if uint32(tt.code) != tt.value {
			t.Errorf("%s = %d, want %d", tt.name, uint32(tt.code), tt.value)
		}
		if got := tt.code.String(); got != tt.name {
			t.Errorf("Code(%d).String() = %q, want %q", tt.value, got, tt.name)
		}
		if got := tt.code.Error(); got != tt.name {
			t.Errorf("Code(%d).Error() = %q, want %q", tt.value, got, tt.name)
		}
		got, err := status.ParseCode(tt.name)
		if err != nil || got != tt.code {
			t.Errorf("ParseCode(%q) = %v, %v; want %v, nil", tt.name, got, err, tt.code)
		}
	}
}

func TestUnknownCodeValues(t *testing.T) {
	for _, tt := range []struct {
		code status.Code
		name string
	}{
		{19, "CODE(19)"},
		{42, "CODE(42)"},
		{math.MaxUint32, "CODE(4294967295)"},
	} {
		if got := tt.code.String(); got != tt.name {
			t.Errorf("Code(%d).String() = %q, want %q", uint32(tt.code), got, tt.name)
		}
		got, err := status.ParseCode(tt.name)
		if err != nil || got != tt.code {
			t.Errorf("ParseCode(%q) = %v, %v; want %d, nil", tt.name, got, err, uint32(tt.code))
		}
	}
}

func TestParseCodeRejects(t *testing.T) {
	for _, s := range []string{
		"", "ok", "not_found", "NotFound", " NOT_FOUND", "NOT_FOUND ",
		"CODE(5)",   // a known code goes by its name
		"CODE(042)", // not as String writes it
		"CODE(+42)", "CODE()", "CODE(x)", "CODE(42", "CODE(4294967296)",
	} {
		got, err := status.ParseCode(s)
		if err == nil {
			t.Errorf("ParseCode(%q) = %v, want an error", s, got)
			continue
		}
		if c := status.CodeOf(err); c != status.InvalidArgument {
			t.Errorf("ParseCode(%q) error has code %v, want INVALID_ARGUMENT", s, c)
		}
		if !strings.Contains(err.Error(), "status: unknown code") {
			t.Errorf("ParseCode(%q) error = %q, want it to say status: unknown code", s, err)
		}
	}
}

func TestCodeText(t *testing.T) {
	type result struct {
		Codes []status.Code `json:"codes"`
	}
	in := result{Codes: []status.Code{status.OK, status.NotFound, status.Incompatible, 99}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"codes":["OK","NOT_FOUND","INCOMPATIBLE","CODE(99)"]}`
	if string(data) != want {
		t.Errorf("json.Marshal = %s, want %s", data, want)
	}
	var out result
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("json round trip differs (-want +got):\n%s", diff)
	}
	var c status.Code
	if err := c.UnmarshalText([]byte("NOPE")); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("UnmarshalText(NOPE) = %v, want an INVALID_ARGUMENT error", err)
	}
}
