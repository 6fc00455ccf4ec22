package autotune

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/telemetry"
)

// Bounds are the bounds a tune ran under (Options' of the same names):
// when sampling stops. Rounds is absent for one.
type Bounds struct {
	TargetHalfWidth float64       `json:"target_half_width"`
	Budget          time.Duration `json:"budget_ns"`
	MinSamples      int           `json:"min_samples"`
	MaxSamples      int           `json:"max_samples"`
	MinSampleTime   time.Duration `json:"min_sample_time_ns"`
	Seed            uint64        `json:"seed"`
	Rounds          int           `json:"rounds,omitempty"`
}

// Entry is what the cache stores for one key: the answer, and everything
// needed to see why it is the answer and to reproduce it.
type Entry struct {
	Schema   int    `json:"schema"`
	Key      string `json:"key"`
	Checksum string `json:"checksum"`
	// Fastest is the index of the winning candidate; FastestName its name.
	Fastest     int    `json:"fastest"`
	FastestName string `json:"fastest_name"`
	// FastestDigest is the digest of the winner's kernel (kernels.Digest
	// of it alone), by which an answer from the shared store names it.
	FastestDigest string `json:"fastest_digest,omitempty"`
	// Tie is set when the winner's interval overlaps the runner-up's or
	// their medians are within Bounds.TargetHalfWidth of each other;
	// TieRule says which, and how the tie was broken.
	Tie     bool             `json:"tie,omitempty"`
	TieRule string           `json:"tie_rule,omitempty"`
	Results []results.Result `json:"results"`
	// Size is the bucket's representative size, which was measured.
	Size   kernels.Size `json:"shape"`
	Level  string       `json:"level"`
	Mode   string       `json:"mode"`
	Bounds Bounds       `json:"limits"`
	// Hardware is the table's hardware; Device the device that measured.
	Hardware string    `json:"hardware"`
	Device   string    `json:"device"`
	Version  string    `json:"vkbench_version"`
	Time     time.Time `json:"time"`
	// Objective is what picked the winner (time if absent); ObjectiveNote
	// says why it is time when another was asked for.
	Objective     Objective `json:"objective,omitempty"`
	ObjectiveNote string    `json:"objective_note,omitempty"`
	// Conditions are the GPU's over the whole sampling, where read;
	// ConditionsNote says why they are not, or why energies are missing.
	Conditions     *telemetry.Conditions `json:"conditions,omitempty"`
	ConditionsNote string                `json:"conditions_note,omitempty"`

	// From is the tier this answer was read from; "" for an answer
	// measured now. It is not stored.
	From Tier `json:"-"`
}

// Tier names a tier of the tune store an answer was read from.
type Tier string

// The tiers an answer is read from: the local cache file, or the shared
// store (store.Store.Shared).
const (
	FromFile   Tier = "the local file"
	FromShared Tier = "the shared store"
)

// DecodeEntry decodes a stored entry. A value that is not an entry of this
// schema is DataLoss; callers treat it as a miss.
func DecodeEntry(data []byte) (*Entry, error) {
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, status.Wrap(err, status.DataLoss, "autotune: cache value does not decode")
	}
	if e.Schema != store.SchemaVersion {
		return nil, status.Newf(status.DataLoss, "autotune: cache value has schema %d, want %d", e.Schema, store.SchemaVersion)
	}
	if err := e.usable(status.DataLoss, "cache value"); err != nil {
		return nil, err
	}
	return &e, nil
}

// usable refuses, with code, an entry no lookup could use: its fastest
// index outside its results, or a bad key. what names the entry.
func (e *Entry) usable(code status.Code, what string) error {
	if e.Fastest < 0 || e.Fastest >= len(e.Results) {
		return status.Newf(code, "autotune: %s's fastest index %d is outside its %d results", what, e.Fastest, len(e.Results))
	}
	if _, err := ParseKey(e.Key); err != nil {
		return status.Wrapf(err, code, "autotune: %s has a bad key", what)
	}
	return nil
}

// namesItsFastest refuses (InvalidArgument) an entry whose fastest_name
// is not the name of its fastest result, the candidate a lookup runs.
// what names the entry. e is usable.
func (e *Entry) namesItsFastest(what string) error {
	name := e.Results[e.Fastest].Name
	if e.FastestName == name {
		return nil
	}
	names := make([]string, len(e.Results))
	for i, r := range e.Results {
		names[i] = r.Name
	}
	if !slices.Contains(names, e.FastestName) {
		return status.Newf(status.InvalidArgument, "autotune: %s names its fastest %q, which is none of its %d results (%s)", what, e.FastestName, len(names), strings.Join(names, ", "))
	}
	return status.Newf(status.InvalidArgument, "autotune: %s names its fastest %q, but its fastest index %d is %q", what, e.FastestName, e.Fastest, name)
}

// remapped returns a copy of e whose candidate indices, which are those of
// a subset of an operation's candidates, are index[i] in the operation;
// e itself where index is nil (the whole operation) or e is nil.
func (e *Entry) remapped(index []int) *Entry {
	if e == nil || index == nil {
		return e
	}
	c := *e
	if c.Fastest >= 0 {
		c.Fastest = index[c.Fastest]
	}
	c.Results = append([]results.Result(nil), e.Results...)
	for i := range c.Results {
		c.Results[i].Index = index[c.Results[i].Index]
	}
	return &c
}
