package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Schema is the schema a manifest names in its "schema" field.
// Later versions of the format get a new name; a manifest of another
// version is refused, not guessed at.
const Schema = "vkbench.manifest/v1"

// Load reads the manifest file at path and returns its
// operations, which the tuner measures as it does the built-in ones. Paths
// in the manifest are relative to the manifest's folder.
//
// A manifest is JSON, decoded strictly: an unknown field is an error that
// names it (and suggests the field it was probably meant to be). Every
// object may have a "comment" string. The format is docs/manifest.md of
// the repository ("A first manifest" is a short example); everything is
// checked when the manifest is read (the package's documentation).
func Load(path string) ([]kernels.Operation, error) {
	return LoadWith(path, Options{})
}

// LoadWith is Load with opts: the context that stops the manifest's
// compiles, and what is told of them.
func LoadWith(path string, opts Options) ([]kernels.Operation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(err, "manifest: %s", path)
	}
	return parseManifest(&manifestSource{name: path, data: data}, filepath.Dir(path), &opts)
}

// Parse reads a manifest from data, resolving the paths it names
// relative to dir. Errors name the manifest "manifest".
func Parse(data []byte, dir string) ([]kernels.Operation, error) {
	return parseManifest(&manifestSource{name: "manifest", data: data}, dir, &Options{})
}

// fileError gives an error reading a file code NotFound if the file does
// not exist, InvalidArgument otherwise (it is the manifest's to fix).
func fileError(err error, format string, args ...any) error {
	code := status.InvalidArgument
	if errors.Is(err, fs.ErrNotExist) {
		code = status.NotFound
	}
	return status.Wrapf(err, code, format, args...)
}

var opNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
var candNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

func parseManifest(src *manifestSource, dir string, opts *Options) (_ []kernels.Operation, err error) {
	defer catch[decodeError](&err)
	root := src.parseJSON()
	top := must(src.object(root, "a manifest"))
	schema, s := top.needString("schema", `"`+Schema+`"`)
	if s != Schema {
		if strings.HasPrefix(s, "vkbench.manifest/") {
			return nil, src.errAt(schema, "unsupported version %q (this vkbench reads %q)", s, Schema)
		}
		return nil, src.errAt(schema, "%q is not a vkbench manifest schema (want %q)", s, Schema)
	}
	elems := must(top.needList("operations", "the list of operations", "a manifest describes at least one operation"))
	tuner := must(tunerName(src, top))
	check(top.done())
	modules := map[string]*manifestModule{}
	var ops []kernels.Operation
	for _, n := range elems {
		named, space := expandSpace(src, n)
		op := must(decodeOperation(src, dir, modules, named, opts, nil))
		if space != nil {
			check(space.attach(op, src, dir, opts))
		}
		if slices.ContainsFunc(ops, func(prev kernels.Operation) bool { return prev.Name() == op.name }) {
			return nil, src.errAt(n.member("name"), "operation %q is described twice", op.name)
		}
		op.tuner = tuner
		ops = append(ops, op)
		for _, w := range op.warnings {
			slog.Warn(w)
		}
	}
	return ops, nil
}

// tunerName is the manifest's "tuner": the name of the tune cache's table
// its winners are kept in, apart from the built-in operations' and other
// manifests'. Without one it is the manifest file's name less its
// extension ("kernels" for kernels.json), or "manifest" for Parse's.
func tunerName(src *manifestSource, top *jsonObj) (string, error) {
	name := strings.TrimSuffix(filepath.Base(src.name), filepath.Ext(src.name))
	n := top.get("tuner")
	if n != nil {
		name = must(src.str(n))
	}
	switch {
	case tunerRE.MatchString(name) && name != BuiltinTuner:
		return name, nil
	case n == nil:
		return "manifest", nil
	}
	return "", src.errAt(n, "%q is not a tuner name: letters, digits, '_', '.' and '-', at most 64, and not %q (the built-in operations' table)", name, BuiltinTuner)
}

// BuiltinTuner names the tune cache's table of the built-in operations,
// which no manifest may take.
const BuiltinTuner = "builtin"

var tunerRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// TunerOf returns the name of the tune cache table a manifest's operation
// keeps its winners in (its manifest's "tuner"), and false for an
// operation that does not come from a manifest.
func TunerOf(op kernels.Operation) (string, bool) {
	if m, ok := op.(*manifestOp); ok {
		return m.tuner, true
	}
	return "", false
}

// Warnings returns the warnings of the operations that come from
// manifests (those Load and Parse return): problems of their
// descriptions that do not stop them from running, such as a
// constant_id that a module does not declare. Load and Parse also log
// each through slog.Default at level Warn when they read it. Other
// operations have none.
func Warnings(ops []kernels.Operation) []string {
	var out []string
	for _, op := range ops {
		if m, ok := op.(*manifestOp); ok {
			out = append(out, m.warnings...)
		}
	}
	return out
}

func (d *opDecoder) warn(n *jsonNode, format string, args ...any) {
	d.op.warnings = append(d.op.warnings, fmt.Sprintf("manifest: %s: %s", d.src.where(n), fmt.Sprintf(format, args...)))
}

// manifestOp is an Operation described by a manifest.
type manifestOp struct {
	name, summary string
	dtype         kernels.DType
	dims          []string
	sizes         [3]kernels.Size // default sizes by kernels.SizeClass
	lets          []*manifestLet
	asserts       []manifestExpr
	bufs          []*manifestBuffer
	bytes, flops  *manifestExpr
	ref           int // the reference candidate; -1 when there is none
	cands         []kernels.Candidate
	runs          []*manifestRun
	// npy digests what its .npy files hold, which its JSON only names.
	npy []byte
	// warnings are the problems of the description that did not stop it.
	warnings []string
	space    *kernels.Space // nil without one (space.go)
	// lazy decodes the configurations of a GLSL space when first needed;
	// nil where there are none.
	lazy *lazyConfigs
	// tuner names the tune cache table of the manifest's winners.
	tuner string
	// files are those it reads (Files).
	files []string
}

func (op *manifestOp) Name() string         { return op.name }
func (op *manifestOp) Summary() string      { return op.summary }
func (op *manifestOp) DType() kernels.DType { return op.dtype }
func (op *manifestOp) Dims() []string       { return slices.Clone(op.dims) }

// Verifies reports whether a candidate's results are checked: against a
// reference candidate, or buffer by buffer against "expect" alone. It is
// false for "verify": "none".
func (op *manifestOp) Verifies() bool {
	return op.ref >= 0 || slices.ContainsFunc(op.bufs, func(b *manifestBuffer) bool { return b.checked() && b.expects() })
}

// Candidates are the operation's candidates; a configuration of a GLSL
// space as far as it is known before its GLSL is compiled (lazy.go).
func (op *manifestOp) Candidates() []kernels.Candidate {
	out := make([]kernels.Candidate, len(op.cands))
	for c := range out {
		out[c] = op.candidate(c)
	}
	return out
}

// DefaultSize is the manifest's default extents for the kind of device
// (its "integrated" and "discrete" defaults, where given), falling back
// to a smaller kind's when the buffers would not fit the device, or the
// size is not one the operation can lay out there.
func (op *manifestOp) DefaultSize(info hal.DeviceInfo) kernels.Size {
	for class := kernels.ClassOf(info); class > kernels.SmallDevice; class-- {
		size := op.sizes[class]
		lay, err := op.layout(size, &info)
		if err != nil {
			continue
		}
		bytes := make([]int64, len(op.bufs))
		for i, b := range op.bufs {
			bytes[i] = lay.lens[i] * int64(b.typ.size)
		}
		if kernels.Fits(info, bytes...) {
			return size
		}
	}
	return op.sizes[kernels.SmallDevice]
}
