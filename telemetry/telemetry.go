package telemetry

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vkbench/vkbench/status"
)

// ErrNotAvailable is matched by Open's error when a device has no
// telemetry source (none registered, no NVML, a device NVML does not
// know). Its code is Unavailable.
var ErrNotAvailable = status.New(status.Unavailable, "telemetry: not available")

// Source reads a device's conditions. Its methods are safe for concurrent
// use.
type Source interface {
	// Name says what the readings come from, such as "nvml".
	Name() string
	// Sample reads the conditions now.
	Sample() (Sample, error)
	// Close releases the source.
	Close() error
}

// Sample is one reading of a device's conditions. A field the source
// cannot read is zero.
type Sample struct {
	Time time.Time
	// SMClockMHz and MemClockMHz are the graphics (SM) and memory clocks.
	SMClockMHz, MemClockMHz uint32
	// PowerW is the power draw in watts: the instantaneous draw where the
	// source has it, else the driver's figure.
	PowerW float64
	// EnergyJ is the device's cumulative energy counter in joules, since
	// an arbitrary origin: only differences mean anything.
	EnergyJ float64
	// TempC is the GPU's temperature in degrees Celsius.
	TempC uint32
	// Reasons are why the clocks are held back now.
	Reasons Reasons
	// MaxSMClockMHz is the highest SM clock the GPU runs at, and
	// PowerLimitW the power limit it holds to; 0 where not known.
	MaxSMClockMHz uint32
	PowerLimitW   float64
}

// Reasons is a set of reasons why a GPU's clocks are held back, with
// NVML's bits (nvmlClocksEventReason*).
type Reasons uint64

// The reasons, as NVML numbers them.
const (
	ReasonIdle          Reasons = 1 << 0  // nothing runs: clocks at idle
	ReasonAppClocks     Reasons = 1 << 1  // application clocks set lower
	ReasonSWPowerCap    Reasons = 1 << 2  // the power limit
	ReasonHWSlowdown    Reasons = 1 << 3  // hardware slowdown (thermal or power)
	ReasonSyncBoost     Reasons = 1 << 4  // held to another GPU's clocks
	ReasonSWThermal     Reasons = 1 << 5  // the thermal limit (software)
	ReasonHWThermal     Reasons = 1 << 6  // the thermal limit (hardware)
	ReasonHWPowerBrake  Reasons = 1 << 7  // an external power brake
	ReasonDisplayClocks Reasons = 1 << 8  // display clock setting
	ReasonBoardLimit    Reasons = 1 << 9  // a board limit
	ReasonReliability   Reasons = 1 << 10 // reliability
	throttlingReasons           = ReasonSWPowerCap | ReasonHWSlowdown | ReasonSWThermal | ReasonHWThermal | ReasonHWPowerBrake | ReasonBoardLimit | ReasonReliability
	clockMoveTolerance          = 0.03
)

var reasonNames = [...]string{"idle", "application-clocks", "power-cap", "hw-slowdown", "sync-boost",
	"thermal", "hw-thermal", "power-brake", "display-clocks", "board-limit", "reliability"}

// Names returns the names of the reasons in r, in bit order; a bit NVML
// may add later is named by its number.
func (r Reasons) Names() []string {
	var out []string
	for i := range 64 {
		if r&(1<<i) == 0 {
			continue
		}
		if i < len(reasonNames) {
			out = append(out, reasonNames[i])
		} else {
			out = append(out, "reason-bit-"+strconv.Itoa(i))
		}
	}
	return out
}

// Throttling reports whether r holds the clocks back for power or heat
// (not merely because the GPU is idle or set so).
func (r Reasons) Throttling() bool { return r&throttlingReasons != 0 }

// Range is the least and the most of a quantity over a window.
type Range struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Conditions summarise the samples of a window: what a result was
// measured under.
type Conditions struct {
	// Source names what the readings come from ("nvml").
	Source string `json:"source"`
	// Samples is how many readings there were.
	Samples     int   `json:"samples"`
	SMClockMHz  Range `json:"sm_clock_mhz"`
	MemClockMHz Range `json:"mem_clock_mhz"`
	PowerW      Range `json:"power_w"`
	TempC       Range `json:"temp_c"`
	// EnergyJ is the energy the device used over the window, where the
	// samples were one window (Summarize); 0 for conditions gathered from
	// moments apart (Around, Merge).
	EnergyJ float64 `json:"energy_j,omitempty"`
	// Throttles are the reasons seen that held the clocks back for power
	// or heat, by name.
	Throttles []string `json:"throttles,omitempty"`
}

// Flags set on results from their conditions.
const (
	// FlagThrottled: the GPU held its clocks back for power or heat while
	// the result was measured.
	FlagThrottled = "throttled"
	// FlagClocksMoved: the SM clock moved by more than 3% across the
	// samples: they were not all taken at one speed.
	FlagClocksMoved = "clocks-moved"
)

// Flags returns the flags the conditions call for.
func (c Conditions) Flags() []string {
	var out []string
	if len(c.Throttles) > 0 {
		out = append(out, FlagThrottled)
	}
	if ClocksApart(c.SMClockMHz.Min, c.SMClockMHz.Max) {
		out = append(out, FlagClocksMoved)
	}
	return out
}

// ClocksApart reports whether two SM clocks, in MHz, are more than 3%
// apart (FlagClocksMoved's rule). A clock of 0 (not known) is apart from
// none.
func ClocksApart(a, b float64) bool {
	lo, hi := min(a, b), max(a, b)
	return lo > 0 && hi > lo*(1+clockMoveTolerance)
}

// Summarize makes the conditions of samples taken in order.
func Summarize(source string, samples []Sample) Conditions {
	c := Conditions{Source: source}
	var seen Reasons
	for _, s := range samples {
		at := func(v float64) Range { return Range{v, v} }
		c = Merge(c, Conditions{Source: source, Samples: 1, SMClockMHz: at(float64(s.SMClockMHz)),
			MemClockMHz: at(float64(s.MemClockMHz)), PowerW: at(s.PowerW), TempC: at(float64(s.TempC))})
		seen |= s.Reasons
	}
	if len(samples) > 0 {
		c.EnergyJ = Energy(samples[0], samples[len(samples)-1])
	}
	if throttles := seen & throttlingReasons; throttles != 0 {
		c.Throttles = throttles.Names()
	}
	return c
}

// Monitor samples a source in the background until Stop.
type Monitor struct {
	src  Source
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	samples []Sample
	err     error
}

// Watch starts sampling src every interval (at least a millisecond), with
// a first sample at once.
func Watch(src Source, interval time.Duration) *Monitor {
	m := &Monitor{src: src, stop: make(chan struct{}), done: make(chan struct{})}
	interval = max(interval, time.Millisecond)
	m.take()
	go func() {
		defer close(m.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.take()
			}
		}
	}()
	return m
}

func (m *Monitor) take() {
	s, err := m.src.Sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.err = cmp.Or(m.err, err)
		return
	}
	m.samples = append(m.samples, s)
}

// Stop takes a last sample, stops the monitor and returns the conditions
// of its window, and the first error a sample met (the conditions cover
// the samples that worked).
func (m *Monitor) Stop() (Conditions, error) {
	close(m.stop)
	<-m.done
	m.take()
	m.mu.Lock()
	defer m.mu.Unlock()
	return Summarize(m.src.Name(), slices.Clone(m.samples)), m.err
}

// Samples returns the samples the monitor has taken, in order.
func (m *Monitor) Samples() []Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.samples)
}

// Around makes the conditions at the moments given, of samples taken in
// order (a Monitor's): for each moment, the sample nearest in time, each
// counted once. Their EnergyJ is 0: the samples are not one window.
func Around(source string, samples []Sample, moments []time.Time) Conditions {
	if len(samples) == 0 || len(moments) == 0 {
		return Conditions{Source: source}
	}
	picked := make([]bool, len(samples))
	for _, t := range moments {
		i, _ := slices.BinarySearchFunc(samples, t, func(s Sample, t time.Time) int { return s.Time.Compare(t) })
		switch {
		case i == len(samples):
			i--
		case i > 0 && t.Sub(samples[i-1].Time) < samples[i].Time.Sub(t):
			i--
		}
		picked[i] = true
	}
	var near []Sample
	for i := range picked {
		if picked[i] {
			near = append(near, samples[i])
		}
	}
	c := Summarize(source, near)
	c.EnergyJ = 0
	return c
}

// Merge returns conditions that cover both a and b: the ranges widened,
// the throttles of either, the samples counted together. Its EnergyJ is
// 0. Merging with the zero Conditions returns the other.
func Merge(a, b Conditions) Conditions {
	if a.Samples == 0 || b.Samples == 0 {
		if a.Samples == 0 {
			a = b
		}
		a.EnergyJ = 0
		return a
	}
	widen := func(x, y Range) Range { return Range{min(x.Min, y.Min), max(x.Max, y.Max)} }
	out := Conditions{Source: a.Source, Samples: a.Samples + b.Samples,
		SMClockMHz: widen(a.SMClockMHz, b.SMClockMHz), MemClockMHz: widen(a.MemClockMHz, b.MemClockMHz),
		PowerW: widen(a.PowerW, b.PowerW), TempC: widen(a.TempC, b.TempC)}
	out.Throttles = slices.Clone(a.Throttles)
	for _, t := range b.Throttles {
		if !slices.Contains(out.Throttles, t) {
			out.Throttles = append(out.Throttles, t)
		}
	}
	return out
}

// String says the conditions in a line: "SM 1980 MHz, memory 3201 MHz,
// 480-512 W, 50-53 °C", with the throttles seen.
func (c Conditions) String() string {
	if c.Samples == 0 {
		return "no readings"
	}
	r := func(x Range, unit string) string {
		if x.Min == x.Max {
			return fmt.Sprintf("%.0f %s", x.Min, unit)
		}
		return fmt.Sprintf("%.0f-%.0f %s", x.Min, x.Max, unit)
	}
	s := "SM " + r(c.SMClockMHz, "MHz") + ", memory " + r(c.MemClockMHz, "MHz") + ", " + r(c.PowerW, "W") + ", " + r(c.TempC, "°C")
	if len(c.Throttles) > 0 {
		s += ", throttled (" + strings.Join(c.Throttles, ", ") + ")"
	}
	return s
}

// Energy returns the energy used between two samples of one source.
func Energy(before, after Sample) float64 { return max(0, after.EnergyJ-before.EnergyJ) }
