package telemetry

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// steadySource reads the same clocks every time.
type steadySource struct{}

func (steadySource) Name() string { return "steady" }
func (steadySource) Sample() (Sample, error) {
	return Sample{Time: time.Now(), SMClockMHz: 1980, MemClockMHz: 3201, PowerW: 100, TempC: 40}, nil
}
func (steadySource) Close() error { return nil }

func TestReasons(t *testing.T) {
	r := ReasonIdle | ReasonSWThermal | Reasons(1<<20)
	if got, want := r.Names(), []string{"idle", "thermal", "reason-bit-20"}; !cmp.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	if !r.Throttling() || (ReasonIdle | ReasonAppClocks).Throttling() {
		t.Error("Throttling: thermal must count, idle and application clocks must not")
	}
}

func TestSummarize(t *testing.T) {
	at := time.Unix(0, 0)
	samples := []Sample{
		{Time: at, SMClockMHz: 1980, MemClockMHz: 3201, PowerW: 300, EnergyJ: 1000, TempC: 40, Reasons: ReasonIdle},
		{Time: at, SMClockMHz: 1755, MemClockMHz: 3201, PowerW: 690, EnergyJ: 1010.5, TempC: 61, Reasons: ReasonSWPowerCap},
		{Time: at, SMClockMHz: 1800, MemClockMHz: 3201, PowerW: 650, EnergyJ: 1020, TempC: 60},
	}
	c := Summarize("nvml", samples)
	want := Conditions{Source: "nvml", Samples: 3, SMClockMHz: Range{1755, 1980}, MemClockMHz: Range{3201, 3201},
		PowerW: Range{300, 690}, TempC: Range{40, 61}, EnergyJ: 20, Throttles: []string{"power-cap"}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if got := c.Flags(); !cmp.Equal(got, []string{FlagThrottled, FlagClocksMoved}) {
		t.Errorf("Flags = %v", got)
	}
	steady := Summarize("nvml", []Sample{{SMClockMHz: 1980}, {SMClockMHz: 1970, Reasons: ReasonIdle}})
	if got := steady.Flags(); len(got) != 0 {
		t.Errorf("steady clocks, idle only: flags %v, want none", got)
	}
}

// TestWatch samples a fake source in the background.
func TestWatch(t *testing.T) {
	w := Watch(steadySource{}, time.Millisecond)
	// Until the background has taken a reading of its own (Watch takes
	// the first at once, Stop the last), not for a fixed 20 ms: a loaded
	// machine may not run the monitor's goroutine within 20 ms, and then
	// Stop, finding its tick and its stop both ready, ends it without the
	// reading half the time. A monitor that never reads in the
	// background still fails, after 10 s.
	for deadline := time.Now().Add(10 * time.Second); len(w.Samples()) < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	c, err := w.Stop()
	if err != nil || c.Samples < 3 || c.SMClockMHz != (Range{1980, 1980}) {
		t.Errorf("Watch, then Stop: %+v, %v; want 3 readings or more, at 1980 MHz", c, err)
	}
}

// TestAround: the conditions at some moments are those of the readings
// nearest each, each reading counted once, without a window's energy.
func TestAround(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var samples []Sample
	for i, clock := range []uint32{1400, 1980, 1980, 1500} { // at 0, 10, 20, 30 ms
		samples = append(samples, Sample{Time: at(10 * i), SMClockMHz: clock, PowerW: float64(100 * (i + 1)), EnergyJ: float64(i), TempC: 50})
	}
	c := Around("nvml", samples, []time.Time{at(9), at(12), at(16)})
	if c.Samples != 2 || c.SMClockMHz != (Range{1980, 1980}) || c.PowerW != (Range{200, 300}) || c.EnergyJ != 0 {
		t.Errorf("around 9, 12 and 16 ms: %+v; want the readings at 10 and 20 ms, no energy", c)
	}
	if c := Around("nvml", samples, []time.Time{at(-5), at(99)}); c.Samples != 2 || c.SMClockMHz != (Range{1400, 1500}) {
		t.Errorf("before the first and after the last: %+v; want the first and the last readings", c)
	}
	if c := Around("nvml", nil, []time.Time{at(1)}); c.Samples != 0 || c.String() != "no readings" {
		t.Errorf("no readings: %+v %q", c, c.String())
	}
}

// TestMerge: merged conditions widen every range and keep the throttles
// of both.
func TestMerge(t *testing.T) {
	a := Conditions{Source: "nvml", Samples: 2, SMClockMHz: Range{1900, 1980}, MemClockMHz: Range{2619, 2619}, PowerW: Range{300, 400}, TempC: Range{50, 52}, EnergyJ: 5, Throttles: []string{"power-cap"}}
	b := Conditions{Source: "nvml", Samples: 3, SMClockMHz: Range{1700, 1950}, MemClockMHz: Range{2619, 2619}, PowerW: Range{350, 690}, TempC: Range{49, 60}, Throttles: []string{"thermal", "power-cap"}}
	got := Merge(a, b)
	want := Conditions{Source: "nvml", Samples: 5, SMClockMHz: Range{1700, 1980}, MemClockMHz: Range{2619, 2619}, PowerW: Range{300, 690}, TempC: Range{49, 60}, Throttles: []string{"power-cap", "thermal"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if got := Merge(Conditions{}, a); got.Samples != 2 || got.EnergyJ != 0 {
		t.Errorf("Merge with nothing: %+v; want a without its energy", got)
	}
	if s := got.String(); s != "SM 1700-1980 MHz, memory 2619 MHz, 300-690 W, 49-60 °C, throttled (power-cap, thermal)" {
		t.Errorf("String: %q", s)
	}
}

// TestClocksApart: more than 3% apart, in either order; an unknown clock
// (0) is apart from none.
func TestClocksApart(t *testing.T) {
	for _, tt := range []struct {
		a, b float64
		want bool
	}{
		{1980, 1980, false}, {1980, 2039, false}, {1980, 2040, true}, {2040, 1980, true},
		{345, 1980, true}, {0, 1980, false}, {1980, 0, false}, {0, 0, false},
	} {
		if got := ClocksApart(tt.a, tt.b); got != tt.want {
			t.Errorf("ClocksApart(%g, %g) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
