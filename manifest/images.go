package manifest

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// manifestImage is what makes a manifest buffer an image: its format,
// its size, and the sampler it is read through where a module samples
// it. Its texels are the buffer's elements, one per component, rows
// first (element i is component i%C of texel i/C), so that init, check,
// expect and tolerance work on images as on buffers; the problem keeps
// them in a buffer of its own, which it copies into the image before a
// run and out of it to verify.
type manifestImage struct {
	format        hal.Format
	width, height manifestExpr
	sampler       hal.SamplerDesc
}

// unorm8 is the element of an 8-bit unsigned normalized format: a byte b
// that a kernel reads as b/255. Only images have it.
var unorm8 = scalarType{"unorm8", 1, floatKind}

// texelType is the element type of an image of format f: unorm8, or
// the 32-bit type of its component.
func texelType(f hal.Format) scalarType {
	if f == hal.RGBA8 || f == hal.RGBA8SRGB {
		return unorm8
	}
	t, _ := lookupScalarType(map[string]string{"uint": "u32", "float": "f32"}[component(f)])
	return t
}

// component is the kind of texel a module must read for format f: float
// (sampler2D, image2D) or uint (usampler2D, uimage2D).
func component(f hal.Format) string {
	if f == hal.R32Uint {
		return "uint"
	}
	return "float"
}

func formatNames() string {
	return strings.Join(par.Map(hal.Formats(), hal.Format.String), ", ")
}

// decodeImage reads an image buffer's "image" (n) and "sampler": its
// element type and length come from them, so it has no "type" nor "len".
func (d *opDecoder) decodeImage(o *jsonObj, n *jsonNode, b *manifestBuffer) error {
	io := must(d.src.object(n, `an image {"format": "rgba8", "width": "W", "height": "H"}`))
	fn, name := io.needString("format", "the image's format: "+formatNames())
	img := &manifestImage{}
	var err error
	if img.format, err = hal.ParseFormat(name); err != nil {
		return d.src.errAt(fn, "unknown image format %q (want one of %s)", name, formatNames())
	}
	for _, f := range []struct {
		key string
		dst *manifestExpr
	}{{"width", &img.width}, {"height", &img.height}} {
		en := must(io.need(f.key, `the image's `+f.key+` in texels, an expression such as "W"`))
		*f.dst = must(d.intExpression(en, lengthContext, "an image's "+f.key))
		if f.dst.usesParams {
			return d.src.errAt(en, "expression %q uses a candidate's params; an image is the same for every candidate", f.dst.src)
		}
	}
	check(io.done())
	for _, k := range []string{"type", "len"} {
		if x := o.get(k); x != nil {
			return d.src.errAt(x, "an image's texels and their number come from its format and size; remove %q", k)
		}
	}
	b.typ = texelType(img.format)
	size := &jsonNode{kind: jsonString, path: n.path, off: n.off,
		s: fmt.Sprintf("(%s) * (%s) * %d", img.width.src, img.height.src, img.format.Components())}
	b.len = must(d.intExpression(size, lengthContext, "an image's size"))
	if sn := o.get("sampler"); sn != nil {
		img.sampler = must(d.decodeSampler(sn))
	}
	b.img = img
	return nil
}

// decodeSampler reads {"filter": "nearest"|"linear", "address":
// "clamp"|"repeat", "coords": "normalized"|"texels"}; each defaults to
// the first.
func (d *opDecoder) decodeSampler(n *jsonNode) (hal.SamplerDesc, error) {
	so := must(d.src.object(n, `a sampler {"filter": "linear", "address": "clamp", "coords": "normalized"}`))
	choose := func(key string, names ...string) (int, error) {
		if v := so.get(key); v != nil {
			return d.src.choice(v, key, names, " or ")
		}
		return 0, nil
	}
	f := must(choose("filter", "nearest", "linear"))
	a := must(choose("address", "clamp", "repeat"))
	c := must(choose("coords", "normalized", "texels"))
	s := hal.SamplerDesc{Filter: hal.Filter(f), Address: hal.AddressMode(a), Unnormalized: c == 1}
	if s.Unnormalized && s.Address != hal.ClampToEdge {
		return s, d.src.errAt(n, "coordinates in texels need the clamp address mode (Vulkan's rule)")
	}
	return s, so.done()
}

// bindingKind checks that buffer buf may be bound where module mod's
// entry point e uses b, and returns the kind of binding it is: a storage
// buffer for a buffer, a storage or sampled image for an image of the
// format and texel kind the module declares.
func (d *opDecoder) bindingKind(at *jsonNode, e *spirv.Entry, mod *manifestModule, b spirv.Binding, buf *manifestBuffer) (hal.BindingKind, error) {
	img := buf.img
	switch b.Kind {
	case spirv.StorageBuffer, spirv.UniformBuffer:
		if img != nil {
			return 0, d.src.errAt(at, "entry point %q of %s uses %v, but %q bound there is an image", e.Name, mod.path, b, buf.name)
		}
		if b.Kind == spirv.UniformBuffer {
			return hal.UniformBufferBinding, nil
		}
		// Floats of another width read as garbage that may still pass a
		// loose check (an f16 buffer bound to a float[] "verified"). Other
		// pairings are left alone: real kernels read bytes and halves
		// through uint arrays on purpose.
		if el := b.Element; el.Kind == "float" && buf.typ.kind == floatKind && int(el.Bits) != 8*buf.typ.size {
			return 0, d.src.errAt(at, "entry point %q of %s declares %v as an array of %d-bit floats, but buffer %q bound there is %s", e.Name, mod.path, b, el.Bits, buf.name, buf.typ.name)
		}
		return hal.StorageBufferBinding, nil
	case spirv.StorageImage, spirv.SampledImage:
	default:
		return 0, d.src.errAt(at, "entry point %q of %s uses %v; vkbench binds storage and uniform buffers, storage images and sampled images (combined with their sampler)", e.Name, mod.path, b)
	}
	if img == nil {
		return 0, d.src.errAt(at, "entry point %q of %s uses %v, but %q bound there is a buffer (describe it with \"image\")", e.Name, mod.path, b, buf.name)
	}
	if b.Image.Dim != spirv.Dim2D || b.Image.Arrayed || b.Image.Multisampled {
		return 0, d.src.errAt(at, "entry point %q of %s uses %v; vkbench binds 2D images only, neither arrayed nor multisampled", e.Name, mod.path, b)
	}
	if b.Image.Component != component(img.format) {
		return 0, d.src.errAt(at, "entry point %q of %s reads %s texels at %v, but image %q is %s, of %s texels", e.Name, mod.path, b.Image.Component, b, buf.name, img.format, component(img.format))
	}
	if b.Kind == spirv.SampledImage {
		return hal.SampledImageBinding, nil
	}
	if b.Image.Format != spirv.Unknown && b.Image.Format.String() != img.format.String() {
		return 0, d.src.errAt(at, "entry point %q of %s declares %v, but image %q is %s", e.Name, mod.path, b, buf.name, img.format)
	}
	return hal.StorageImageBinding, nil
}

// imageBindings yields the buffer index and the binding kind of each
// image the dispatch binds.
func (disp *manifestDispatch) imageBindings() iter.Seq2[int, hal.BindingKind] {
	return func(yield func(int, hal.BindingKind) bool) {
		for binding, kind := range disp.desc.BindingKinds {
			if !kind.IsBuffer() && !yield(disp.bindings[binding], kind) {
				return
			}
		}
	}
}

func (op *manifestOp) imageExtent(b *manifestBuffer, env exprEnv) ([2]int64, error) {
	var out [2]int64
	var err error
	for k, e := range []manifestExpr{b.img.width, b.img.height} {
		if out[k], err = e.evalIn(env, 1, 1<<24, "is %d texels, outside [1, 2²⁴]"); err != nil {
			break
		}
	}
	return out, err
}

// imageUsage is how the candidates that info's device can run bind each
// buffer (0 for a buffer, or an image none of them binds): an image is
// made for those uses only, so that one candidate's use the device lacks
// (a storage image of a format it only samples, say) leaves that
// candidate unsupported rather than the operation.
func (op *manifestOp) imageUsage(info hal.DeviceInfo) []hal.ImageUsage {
	usage := make([]hal.ImageUsage, len(op.bufs))
	for c, run := range op.runs {
		if (kernels.Requirements{Images: op.cands[c].Requires.Images}).Supported(info) != nil {
			continue
		}
		for _, disp := range run.dispatches {
			for b, kind := range disp.imageBindings() {
				if kind == hal.SampledImageBinding {
					usage[b] |= hal.ImageSampled
				} else {
					usage[b] |= hal.ImageStorage
				}
			}
		}
	}
	return usage
}

// createImages creates the image of every image buffer that a candidate
// binds as one, and its sampler where one samples it, then copies the
// initial texels of the input and inout images in. The buffers are
// allocated and filled already.
func (p *manifestProblem) createImages(ctx context.Context, info hal.DeviceInfo) error {
	op := p.op
	usage := op.imageUsage(info)
	var uploads []int
	for i, b := range op.bufs {
		if b.img == nil || usage[i] == 0 {
			continue
		}
		ext := p.extents[i]
		if limit := int64(info.Limits.MaxImageDimension2D); ext[0] > limit || ext[1] > limit {
			return status.Newf(status.OutOfRange, "manifest: image %s is %d×%d texels, past the device's maxImageDimension2D of %d", b.name, ext[0], ext[1], limit)
		}
		img, err := p.dev.CreateImage(hal.ImageDesc{Format: b.img.format, Width: int(ext[0]), Height: int(ext[1]),
			Usage: usage[i], Label: op.name + "." + b.name})
		if err != nil {
			return status.Annotatef(err, "manifest: creating image %s", b.name)
		}
		p.images[i] = img
		if usage[i].Has(hal.ImageSampled) {
			desc := b.img.sampler
			desc.Label = op.name + "." + b.name
			if p.samplers[i], err = p.dev.CreateSampler(desc); err != nil {
				return status.Annotatef(err, "manifest: creating the sampler of image %s", b.name)
			}
		}
		if b.role == roleInput || b.role == roleInOut {
			uploads = append(uploads, i)
		}
	}
	if len(uploads) == 0 {
		return nil
	}
	return kernels.Execute(ctx, p.dev, func(cb hal.CommandBuffer) error {
		for _, i := range uploads {
			// An inout image starts from its initial contents.
			if err := cb.CopyBufferToImage(cmp.Or(p.initial[i], p.bufs[i]), 0, p.images[i]); err != nil {
				return status.Annotatef(err, "manifest: filling image %s", op.bufs[i].name)
			}
		}
		return nil
	})
}

// binding is what binding k of dispatch disp holds: buffer index b, or
// its image (and sampler) where the dispatch binds it as an image.
func (p *manifestProblem) binding(disp *manifestDispatch, k, b int) hal.Binding {
	kinds := disp.desc.BindingKinds
	switch {
	case kinds == nil || kinds[k].IsBuffer():
		return hal.Binding{Buffer: p.bufs[b]}
	case kinds[k] == hal.SampledImageBinding:
		return hal.Binding{Image: p.images[b], Sampler: p.samplers[b]}
	}
	return hal.Binding{Image: p.images[b]}
}

// resets reports whether any buffer or image of the operation must be
// reset before each run.
func (op *manifestOp) resets() bool {
	return slices.ContainsFunc(op.bufs, func(b *manifestBuffer) bool { return b.role == roleInOut || b.img != nil && b.role == roleOutput })
}

// download copies every checked image into its buffer, where Verify and
// the reference's results read it.
func (p *manifestProblem) download(ctx context.Context) error {
	checked := slices.DeleteFunc(p.op.checkedBuffers(), func(i int) bool { return p.images[i] == nil })
	if len(checked) == 0 {
		return nil
	}
	return kernels.Execute(ctx, p.dev, func(cb hal.CommandBuffer) error {
		for _, i := range checked {
			if err := cb.CopyImageToBuffer(p.images[i], p.bufs[i], 0); err != nil {
				return status.Annotatef(err, "manifest: reading image %s", p.op.bufs[i].name)
			}
		}
		return nil
	})
}
