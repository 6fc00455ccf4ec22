package autotune_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// FuzzDecodeEntry decodes fuzzed cache values: nothing panics, bad input
// is DataLoss (a miss), and what decodes is an entry a lookup can use (the
// fastest index names one of its results, the key parses) that survives
// being stored again. Interesting inputs found so far are seeds under
// testdata/fuzz/FuzzDecodeEntry.
func FuzzDecodeEntry(f *testing.F) {
	good := entry(1, "naive", "tiled")
	good.Schema, good.Key, good.Checksum = store.SchemaVersion, "gemm/f32/64x64x64", "c"
	data, err := json.Marshal(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	four := entry(2, "a", "b", "c", "d")
	four.Schema, four.Key, four.Checksum, four.Hardware = store.SchemaVersion, "transpose/f32/67x4096x128", "3f2a9c41d07b5e66", "nvidia-2303_gpu-03_575.57.08"
	f.Add(mustJSON(f, four))
	f.Add([]byte(`{"schema":2,"key":"copy/u32/8","fastest":0,"results":[{}]}`))
	f.Add([]byte(`{"schema":1,"key":"copy/u32/8","fastest":1,"results":[{}]}`))
	f.Add([]byte(`{"schema":1,"key":"copy/u32/8","fastest":-1,"results":[{}]}`))
	f.Add([]byte(`{"schema":1,"key":"copy//8","fastest":0,"results":[{}]}`))
	f.Add([]byte(`{"schema":1,"key":"copy/u32/8","fastest":0,"results":[{"stats":{"samples_s":[1e308,-0]}}],"time":"2026-01-02T03:04:05.999999999+23:59"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := autotune.DecodeEntry(data)
		if err != nil {
			if c := status.CodeOf(err); c != status.DataLoss {
				t.Fatalf("DecodeEntry error with code %v, want DataLoss: %v", c, err)
			}
			if e != nil {
				t.Fatalf("DecodeEntry returned an entry with its error %v", err)
			}
			return
		}
		if e.Schema != store.SchemaVersion {
			t.Fatalf("decoded an entry of schema %d", e.Schema)
		}
		if e.Fastest < 0 || e.Fastest >= len(e.Results) {
			t.Fatalf("decoded fastest %d of %d results", e.Fastest, len(e.Results))
		}
		if _, err := autotune.ParseKey(e.Key); err != nil {
			t.Fatalf("decoded a bad key: %v", err)
		}
		// Export and Import store entries again: what decoded must encode
		// and decode to the same entry.
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("a decoded entry does not encode: %v", err)
		}
		e2, err := autotune.DecodeEntry(again)
		if err != nil {
			t.Fatalf("a re-encoded entry does not decode: %v\n%s", err, again)
		}
		// omitempty stores an empty list as none.
		if diff := cmp.Diff(e, e2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("entry changed by encoding and decoding again (-first +second):\n%s", diff)
		}
	})
}
