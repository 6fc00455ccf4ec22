package kernels

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/status"
)

// Param is one tunable parameter of a Space: a name, and the values it
// takes in order. A local search steps between neighbouring values, so
// list them in an order where neighbours are alike (ascending sizes). A
// tuning log records a space's params in this form.
type Param struct {
	Name   string `json:"name"`
	Values []int  `json:"values"`
}

// Pow2 returns the powers of two from lo to hi: Pow2(8, 64) is
// [8 16 32 64]. lo must be a power of two.
func Pow2(lo, hi int) []int {
	var out []int
	for v := max(lo, 1); v <= hi; v *= 2 {
		out = append(out, v)
	}
	return out
}

// Range returns lo, lo+step, ... up to hi.
func Range(lo, hi, step int) []int {
	var out []int
	for v := lo; v <= hi && step > 0; v += step {
		out = append(out, v)
	}
	return out
}

// Config is a point of a space: a value for each of its params, by name.
type Config map[string]int

// Env is what a restriction sees: one configuration, the problem's size
// (named by its operation's dimensions) and the device's limits.
type Env struct {
	Config Config
	Dims   []string
	Size   Size
	Limits hal.Limits
}

// Param returns the configuration's value of name; it panics when the
// space has no such param, a mistake in the restriction's code.
func (e Env) Param(name string) int {
	v, ok := e.Config[name]
	if !ok {
		panic(fmt.Sprintf("kernels: restriction reads param %q, which the space does not have", name))
	}
	return v
}

// Dim returns the problem's extent in dimension name; it panics when the
// operation has no such dimension.
func (e Env) Dim(name string) int {
	if i := slices.Index(e.Dims, name); i >= 0 && i < e.Size.Len() {
		return e.Size.Dim(i)
	}
	panic(fmt.Sprintf("kernels: restriction reads dimension %q, which the operation does not have (%v)", name, e.Dims))
}

// Restriction is a condition that every configuration a search builds
// must meet. A configuration that fails one is never compiled.
type Restriction struct {
	// Expr is the condition as people read it, in the expression language
	// of manifests ("BM % (4*TY) == 0", "BK*BN*4*2 <= max_shared_memory"):
	// what a rejected configuration is said to fail.
	Expr string
	// Holds evaluates the condition. An error (a division by zero in a
	// manifest's expression) rejects the configuration, as false does.
	Holds func(Env) (bool, error)
}

// Space is an operation's space of tunable parameters: the product of its
// params' values, less the configurations that fail a restriction, each
// configuration one kernel (Candidate). Restrictions may read the
// problem's dims and the device's limits, so the valid configurations,
// the Points, are those of one size on one device.
type Space struct {
	Params       []Param
	Restrictions []Restriction
	// Candidate returns the kernel of a configuration: its name (unique
	// in the space), SPIR-V, specialization constants, workgroup size and
	// requirements.
	Candidate func(Config) (Candidate, error)
	// Load, if set, does what every configuration's kernel needs (a
	// manifest's space decodes its configurations): Points calls it
	// before it asks Candidate for any, so that its error is said as the
	// space's, not as that of the configuration asked for first. It may
	// be called more than once.
	Load func() error
	// Operation returns an operation, the space's, whose candidates
	// include cands, and the index of each of cands among them.
	Operation func(cands []Candidate) (Operation, []int)
	// Identity, if set, returns what identifies a configuration's kernel
	// in a tuning log, where a record holds while it is unchanged; nil
	// means the Digest of the candidate alone.
	Identity func(Config, Candidate) string
}

// Searchable is implemented by operations whose kernels span a Space. Their
// Candidates are named points of it, which vkbench run measures; a search
// (vkbench tune --strategy) explores the whole space. Space returns nil
// when the operation has none.
type Searchable interface {
	Operation
	Space() *Space
}

// SpaceOf returns op's space, or nil if it has none.
func SpaceOf(op Operation) *Space {
	if s, ok := op.(Searchable); ok {
		return s.Space()
	}
	return nil
}

// Points is a space's valid configurations for one size on one device,
// and the operation that has their kernels among its candidates.
type Points struct {
	Space   *Space
	Configs []Config
	// Op has the configurations' kernels among its candidates: candidate
	// Index[i] is Configs[i]'s.
	Op    Operation
	Index []int
	// IDs identify each configuration's kernel (Space.Identity); ID
	// gives one that is known only once its kernel is built.
	IDs []string
	// deferred marks the configurations whose kernels are judged, and
	// identified, when built (ErrDeferred).
	deferred []bool
	// Rejected counts the configurations each restriction rejected (by its
	// Expr; "device" for those the device cannot run at the size, "size"
	// for those the size refuses otherwise), the first failed restriction
	// of each configuration.
	Rejected map[string]int
	// Total is the size of the product of the params' values.
	Total int
}

// Name returns a configuration as "BM=128,BN=64,...", in the space's
// order of params.
func (s *Space) Name(c Config) string {
	return strings.Join(par.Map(s.Params, func(p Param) string { return p.Name + "=" + strconv.Itoa(c[p.Name]) }), ",")
}

// Check returns nil if the space is well formed: at least one param,
// names unique and non-empty, every param with values, none repeated,
// and the functions set.
func (s *Space) Check() error {
	bad := func(format string, args ...any) error {
		return status.Newf(status.InvalidArgument, "kernels: space: "+format, args...)
	}
	if len(s.Params) == 0 {
		return bad("no params")
	}
	if s.Candidate == nil || s.Operation == nil {
		return bad("Candidate and Operation must be set")
	}
	seen := map[string]bool{}
	for _, p := range s.Params {
		if p.Name == "" || seen[p.Name] {
			return bad("param name %q is empty or repeated", p.Name)
		}
		seen[p.Name] = true
		if len(p.Values) == 0 {
			return bad("param %s has no values", p.Name)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(p.Values)))) != len(p.Values) {
			return bad("param %s repeats a value: %v", p.Name, p.Values)
		}
	}
	return nil
}

// Size is the number of configurations in the product of the params'
// values, before any restriction.
func (s *Space) Size() int {
	n := 1
	for _, p := range s.Params {
		n *= len(p.Values)
	}
	return n
}

// Config returns configuration number i of the product, the first param
// varying slowest.
func (s *Space) Config(i int) Config {
	c := make(Config, len(s.Params))
	for j := len(s.Params) - 1; j >= 0; j-- {
		p := s.Params[j]
		c[p.Name] = p.Values[i%len(p.Values)]
		i /= len(p.Values)
	}
	return c
}

// Candidates returns the configurations' kernels, in order.
func (p *Points) Candidates() []Candidate {
	return picked(p.Op.Candidates(), p.Index)
}

// Points enumerates the configurations of the space valid for a problem of
// size (of an operation with dimensions dims) on the device info
// describes, in the order of the product: those that meet every
// restriction and whose kernel, as it runs at size (CandidatesAt), the
// device supports, or that can be judged only once built (ErrDeferred).
// Nothing is compiled but what the space's Load compiles.
func (s *Space) Points(dims []string, size Size, info hal.DeviceInfo) (*Points, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if s.Load != nil {
		if err := s.Load(); err != nil {
			return nil, status.Annotatef(err, "kernels: space")
		}
	}
	pts := &Points{Space: s, Rejected: map[string]int{}, Total: s.Size()}
	var cfgs []Config
	var cands []Candidate
	names := map[string]bool{}
next:
	for i := range pts.Total {
		cfg := s.Config(i)
		env := Env{Config: cfg, Dims: dims, Size: size, Limits: info.Limits}
		for _, r := range s.Restrictions {
			if ok, err := r.Holds(env); err != nil || !ok {
				pts.Rejected[r.Expr]++
				continue next
			}
		}
		c, err := s.Candidate(cfg)
		if err != nil {
			return nil, status.Annotatef(err, "kernels: space: configuration %s", s.Name(cfg))
		}
		if names[c.Name] {
			return nil, status.Newf(status.InvalidArgument, "kernels: space: two configurations make a candidate named %q", c.Name)
		}
		names[c.Name] = true
		cfgs, cands = append(cfgs, cfg), append(cands, c)
	}
	// A kernel's pipeline may depend on the size (a manifest's constants,
	// workgroup or shared memory worked out from its dims): each is judged
	// as it runs at this one.
	op, index := s.Operation(cands)
	if len(index) != len(cands) {
		return nil, status.Newf(status.Internal, "kernels: space: Operation placed %d of %d kernels", len(index), len(cands))
	}
	_, refused := CandidatesAt(op, size, info)
	var kept []Candidate
	var why error // the first refusal
	for k, c := range cands {
		err := refused[index[k]]
		deferred := errors.Is(err, ErrDeferred)
		if err != nil && !deferred {
			why = cmp.Or(why, err)
			reason := "device"
			if status.CodeOf(err) != status.Unimplemented {
				reason = "size" // a manifest's assert of the size, say
			}
			pts.Rejected[reason]++
			continue
		}
		id := ""
		if !deferred {
			id = s.identity(cfgs[k], c)
		}
		pts.Configs = append(pts.Configs, cfgs[k])
		pts.IDs = append(pts.IDs, id)
		pts.deferred = append(pts.deferred, deferred)
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		msg := fmt.Sprintf("kernels: space: none of its %d configurations is valid at %v on %s (rejected: %v)", pts.Total, size, info.Name, pts.Rejected)
		if why != nil {
			return nil, status.Wrapf(why, status.NotFound, "%s; the first refused", msg)
		}
		return nil, status.New(status.NotFound, msg)
	}
	if len(kept) < len(cands) {
		op, index = s.Operation(kept)
	}
	pts.Op, pts.Index = op, index
	return pts, nil
}

// identity is what identifies configuration c's kernel k.
func (s *Space) identity(c Config, k Candidate) string {
	if s.Identity != nil {
		return s.Identity(c, k)
	}
	d := Digest([]Candidate{k})
	return fmt.Sprintf("%x", d[:16])
}

// Deferred reports whether configuration i's kernel is judged, and
// identified, only when it is built (ErrDeferred).
func (p *Points) Deferred(i int) bool { return i < len(p.deferred) && p.deferred[i] }

// ID returns configuration i's identity: IDs[i], worked out the first
// time for a Deferred one, which builds its kernel (a manifest compiles
// its GLSL, or finds it in its cache). Not safe for concurrent use.
func (p *Points) ID(i int) string {
	if p.IDs[i] == "" && p.Deferred(i) {
		p.IDs[i] = p.Space.identity(p.Configs[i], picked(p.Op.Candidates(), p.Index[i:i+1])[0])
	}
	return p.IDs[i]
}

// Index returns the position of each of c's values in its param's list
// of values: the coordinates a search works with.
func (s *Space) Index(c Config) []int {
	return par.Map(s.Params, func(p Param) int { return slices.Index(p.Values, c[p.Name]) })
}

// A DeviceLimit is a limit of the device that restrictions and manifests'
// expressions may read by name. Where no device is known yet (a manifest
// being read), Least stands in: the least every Vulkan device allows, so
// that what holds for it holds on any device.
type DeviceLimit struct {
	Name  string
	Least uint32
	Of    func(hal.Limits) uint32
}

// DeviceLimits are the limits expressions may read.
var DeviceLimits = []DeviceLimit{
	{"max_groups_x", 65535, func(l hal.Limits) uint32 { return l.MaxWorkgroupCount[0] }},
	{"max_groups_y", 65535, func(l hal.Limits) uint32 { return l.MaxWorkgroupCount[1] }},
	{"max_groups_z", 65535, func(l hal.Limits) uint32 { return l.MaxWorkgroupCount[2] }},
	{"max_workgroup_size_x", 128, func(l hal.Limits) uint32 { return l.MaxWorkgroupSize[0] }},
	{"max_workgroup_size_y", 128, func(l hal.Limits) uint32 { return l.MaxWorkgroupSize[1] }},
	{"max_workgroup_size_z", 64, func(l hal.Limits) uint32 { return l.MaxWorkgroupSize[2] }},
	{"max_workgroup_invocations", 128, func(l hal.Limits) uint32 { return l.MaxWorkgroupInvocations }},
	{"max_shared_memory", 16384, func(l hal.Limits) uint32 { return l.MaxSharedMemory }},
	{"subgroup_size", 1, func(l hal.Limits) uint32 { return l.SubgroupSize }},
}
