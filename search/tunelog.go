package search

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// LogFormat names the format of an exported tuning log (WriteTuneLog):
// JSON lines, a LogHeader, then the LogRecords ("kind": "eval") and the
// LogSearches ("kind": "search"), in the order they ran.
const LogFormat = "vkbench.tunelog/v1"

// TuneLog is the tuning log of one key.
type TuneLog struct {
	Header   LogHeader
	Evals    []LogRecord
	Searches []LogSearch
}

// LogHeader describes a log: where it was recorded and the space searched.
type LogHeader struct {
	Format string      `json:"format"`
	Table  store.Table `json:"table"`
	// Key is the key searched: the operation (not its space's ".space"
	// tuning key), dtype and representative shape.
	Key  string `json:"key"`
	Mode string `json:"mode"`
	// Space is the space as last searched, of Points valid configurations.
	Space   LogSpace  `json:"space"`
	Points  int       `json:"points"`
	Device  string    `json:"device,omitempty"`
	Version string    `json:"vkbench_version,omitempty"`
	Time    time.Time `json:"time"`
}

// LogSpace is a space's description in a log.
type LogSpace struct {
	Params       []kernels.Param `json:"params"`
	Restrictions []string        `json:"restrictions,omitempty"`
}

// LogSpaceOf describes s as a log records it.
func LogSpaceOf(s *kernels.Space) LogSpace {
	out := LogSpace{Params: slices.Clone(s.Params)}
	for _, r := range s.Restrictions {
		out.Restrictions = append(out.Restrictions, r.Expr)
	}
	return out
}

// LogRecord is one evaluated configuration, with the time its pipeline
// took to compile and its verification and sampling took.
type LogRecord struct {
	Kind string `json:"kind"` // "eval"
	// ID identifies the configuration's kernel (kernels.Space.Identity):
	// a record applies while the kernel is unchanged.
	ID     string         `json:"id"`
	Config kernels.Config `json:"config"`
	results.Result
	CompileSeconds float64   `json:"compile_s"`
	MeasureSeconds float64   `json:"measure_s"`
	Time           time.Time `json:"time"`
}

// Verified reports whether r is a verified, timed configuration, one
// that may win.
func (r *LogRecord) Verified() bool { return r.Ran() && r.Stats.Median > 0 }

// LogSearch is one search: its strategy, seed and bounds, the
// configurations it evaluated (Order, by name), how many it measured (the
// rest came from the log), and the winner among them (Best) by its
// Objective: by time (Objective empty) the fastest verified, as in every
// log written before a search by energy named its winner; by "energy" or
// "edp" (a tuner's objective, or a replayed log's), picked as a tuner's
// answer is.
type LogSearch struct {
	Kind        string   `json:"kind"` // "search"
	Strategy    string   `json:"strategy"`
	Seed        uint64   `json:"seed"`
	Lookahead   int      `json:"lookahead"`
	MaxEvals    int      `json:"max_evals,omitempty"`
	Simulated   bool     `json:"simulated,omitempty"` // a replay of a log (no GPU)
	Order       []string `json:"order"`
	Measured    int      `json:"measured"`
	Best        string   `json:"best,omitempty"`
	Objective   string   `json:"objective,omitempty"`   // what Best won by; empty for time
	Interrupted bool     `json:"interrupted,omitempty"` // stopped before its end
	// Seconds of compiling (summed over threads, and with what the
	// space compiled as its points were enumerated: a manifest's GLSL),
	// of verifying and sampling, and of the whole search.
	CompileSeconds float64   `json:"compile_s"`
	MeasureSeconds float64   `json:"measure_s"`
	WallSeconds    float64   `json:"wall_s"`
	Time           time.Time `json:"time"`
}

// Objective is what the log's last search picked its winner by
// (LogSearch.Objective): "energy" or "edp", or "" for time, as in a log
// without searches or written before a search by energy named it.
func (l *TuneLog) Objective() string {
	if len(l.Searches) == 0 {
		return ""
	}
	return l.Searches[len(l.Searches)-1].Objective
}

// WriteTuneLog writes l as JSON lines.
func WriteTuneLog(w io.Writer, l *TuneLog) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	h := l.Header
	h.Format = LogFormat
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, r := range l.Evals {
		r.Kind = "eval"
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	for _, s := range l.Searches {
		s.Kind = "search"
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadTuneLog reads what WriteTuneLog wrote. A stream that is not a
// tuning log, or a line that does not decode, is InvalidArgument, naming
// the line.
func ReadTuneLog(r io.Reader) (*TuneLog, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	l := &TuneLog{}
	line := 0
	bad := func(format string, args ...any) (*TuneLog, error) {
		return nil, status.Newf(status.InvalidArgument, "search: tuning log line %d: "+format, append([]any{line}, args...)...)
	}
	for sc.Scan() {
		line++
		data := sc.Bytes()
		if line == 1 {
			err := json.Unmarshal(data, &l.Header)
			if err != nil && bytes.Contains(data, []byte(`"`+LogFormat+`"`)) {
				return bad("a tuning log's header, cut short or damaged: %v", err)
			}
			if err != nil || l.Header.Format != LogFormat {
				return bad("not a tuning log (want a header with \"format\": %q)", LogFormat)
			}
			continue
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(data, &kind); err != nil {
			return bad("%v", err)
		}
		switch kind.Kind {
		case "eval":
			var rec LogRecord
			if err := json.Unmarshal(data, &rec); err != nil {
				return bad("%v", err)
			}
			if len(rec.Config) == 0 || rec.Name == "" {
				return bad("an evaluation without a configuration or a name")
			}
			l.Evals = append(l.Evals, rec)
		case "search":
			var s LogSearch
			if err := json.Unmarshal(data, &s); err != nil {
				return bad("%v", err)
			}
			l.Searches = append(l.Searches, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, status.Wrap(err, status.InvalidArgument, "search: reading a tuning log")
	}
	if line == 0 {
		return nil, status.New(status.InvalidArgument, "search: the tuning log is empty")
	}
	if len(l.Header.Space.Params) == 0 {
		return nil, status.New(status.InvalidArgument, "search: the tuning log's header names no params")
	}
	return l, nil
}
