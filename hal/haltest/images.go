package haltest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// needFormat skips the test unless the device can make images of f with
// the features of usage, and, with linear, filter them linearly.
func (e *env) needFormat(f hal.Format, usage hal.ImageUsage, linear bool) {
	e.Helper()
	need := usage.Features()
	if linear {
		need |= hal.FormatLinearFilter
	}
	if have := e.info.ImageFormats.Of(f); !have.Has(need) {
		e.Skipf("the device cannot make %s images of format %s with %s (it has %s)", usage, f, need, have)
	}
}

func (e *env) image(desc hal.ImageDesc) hal.Image {
	e.Helper()
	img, err := e.dev.CreateImage(desc)
	return owned(e, "Image", img, err, fmt.Sprintf("CreateImage(%+v)", desc))
}

func (e *env) sampler(desc hal.SamplerDesc) hal.Sampler {
	e.Helper()
	s, err := e.dev.CreateSampler(desc)
	return owned(e, "Sampler", s, err, fmt.Sprintf("CreateSampler(%+v)", desc))
}

// sampleCase is a dispatch of kernelSample over a w×h image of random
// floats in [0, 1).
type sampleCase struct {
	w, h     int
	src, dst hal.Image
	out      hal.Buffer
	texels   []float32
}

func (e *env) newSampleCase(rng *rand.Rand, w, h int) *sampleCase {
	e.Helper()
	c := &sampleCase{w: w, h: h, texels: make([]float32, w*h)}
	for i := range c.texels {
		c.texels[i] = rng.Float32()
	}
	c.src = e.image(hal.ImageDesc{Format: hal.R32Float, Width: w, Height: h, Usage: hal.ImageSampled, Label: "src"})
	c.dst = e.image(hal.ImageDesc{Format: hal.R32Float, Width: w, Height: h, Usage: hal.ImageStorage, Label: "dst"})
	c.out = e.buffer(int64(4*w*h), hal.DeviceLocal)
	return c
}

// doubled is what kernelSample writes into its storage image.
func (c *sampleCase) doubled() []float32 {
	v := make([]float32, len(c.texels))
	for i, t := range c.texels {
		v[i] = 2*t + 1
	}
	return v
}

func (c *sampleCase) dispatch(x hal.Executable, s hal.Sampler, offX float32) hal.Dispatch {
	return hal.Dispatch{
		Executable:    x,
		Bindings:      []hal.Binding{{Image: c.src, Sampler: s}, {Image: c.dst}, {Buffer: c.out}},
		PushConstants: words(uint32(c.w), uint32(c.h), math.Float32bits(offX), 0),
		Groups:        [3]uint32{uint32((c.w + 7) / 8), uint32((c.h + 7) / 8), 1},
	}
}

func (e *env) readImage(img hal.Image) []byte {
	e.Helper()
	dst := make([]byte, img.Desc().Bytes())
	if err := img.Read(e.ctx, dst); err != nil {
		e.Fatalf("Image.Read of %q: %v", img.Desc().Label, err)
	}
	return dst
}

func testImageReadWrite(e *env) {
	rng := rand.New(rand.NewPCG(41, 42))
	tested := 0
	for _, f := range hal.Formats() {
		var usage hal.ImageUsage
		for _, u := range []hal.ImageUsage{hal.ImageStorage, hal.ImageSampled} {
			if e.info.ImageFormats.Of(f).Has(u.Features()) {
				usage |= u
			}
		}
		if usage == 0 {
			continue
		}
		tested++
		img := e.image(hal.ImageDesc{Format: f, Width: 37, Height: 19, Usage: usage, Label: f.String()})
		check(e, "a new "+f.String()+" image, which must be zero", e.readImage(img), make([]byte, img.Desc().Bytes()), 0)
		data := random[byte](rng, int(img.Desc().Bytes()))
		e.must("Image.Write of a "+f.String()+" image", img.Write(e.ctx, data))
		check(e, f.String()+" image read back", e.readImage(img), data, 0)
	}
	if tested == 0 {
		e.Skip("the device makes no images")
	}
}

func testImageDispatch(e *env) {
	e.needFormat(hal.R32Float, hal.ImageSampled|hal.ImageStorage, true)
	const w, h = 29, 13
	c := e.newSampleCase(rand.New(rand.NewPCG(43, 44)), w, h)
	x := e.executable(kernelSample)
	staging := e.buffer(16+int64(4*w*h), hal.HostVisible)
	e.write(staging, 16, pack(c.texels))
	cb := e.recorded(func(cb hal.CommandBuffer) { e.must("CopyBufferToImage", cb.CopyBufferToImage(staging, 16, c.src)) })
	e.execute(cb, "CopyBufferToImage")
	if got := unpack[float32](e.readImage(c.src)); !bytes.Equal(pack(got), pack(c.texels)) {
		e.Fatalf("the image CopyBufferToImage filled does not hold the buffer's texels")
	}
	doubled := c.doubled()
	for _, tc := range []struct {
		desc hal.SamplerDesc
		off  float32
		want func(x, y int) float32
	}{
		{hal.SamplerDesc{Filter: hal.Nearest}, 0, func(x, y int) float32 { return c.texels[y*w+x] }},
		{hal.SamplerDesc{Filter: hal.Linear}, 0, func(x, y int) float32 { return c.texels[y*w+x] }},
		{hal.SamplerDesc{Filter: hal.Linear}, 0.5, func(x, y int) float32 { return (c.texels[y*w+x] + c.texels[y*w+min(x+1, w-1)]) / 2 }},
		{hal.SamplerDesc{Filter: hal.Linear, Address: hal.Repeat}, 0.5, func(x, y int) float32 { return (c.texels[y*w+x] + c.texels[y*w+(x+1)%w]) / 2 }},
	} {
		what := fmt.Sprintf("%s sampler, %s, offset %g", tc.desc.Filter, tc.desc.Address, tc.off)
		s := e.sampler(tc.desc)
		e.record(cb, func() {
			e.dispatch(cb, c.dispatch(x, s, tc.off))
			e.barrier(cb)
			e.must("CopyImageToBuffer", cb.CopyImageToBuffer(c.dst, staging, 16))
		})
		e.execute(cb, what)
		want := make([]float32, w*h)
		for y := range h {
			for x := range w {
				want[y*w+x] = tc.want(x, y)
			}
		}
		// Linear filtering weighs with as few as 8 bits of the fraction.
		check(e, what+": the buffer", unpack[float32](e.read(c.out, 0, int64(4*w*h))), want, 1e-3)
		check(e, what+": the storage image", unpack[float32](e.readImage(c.dst)), doubled, 1e-6)
		check(e, what+": the storage image copied to a buffer", unpack[float32](e.read(staging, 16, int64(4*w*h))), doubled, 1e-6)
	}
}

func testImageReleaseAfterSubmit(e *env) {
	e.needFormat(hal.R32Float, hal.ImageSampled|hal.ImageStorage, false)
	rng := rand.New(rand.NewPCG(45, 46))
	for _, beforeSubmit := range []bool{false, true} {
		c := e.newSampleCase(rng, 16, 16)
		e.must("Image.Write", c.src.Write(e.ctx, pack(c.texels)))
		job := e.newSpinJob(inFlightJob)
		x := e.executable(kernelSample)
		s := e.sampler(hal.SamplerDesc{Filter: hal.Nearest})
		keep := e.buffer(c.out.Size(), hal.HostVisible)
		cb := e.recorded(func(cb hal.CommandBuffer) {
			job.record(e, cb)
			e.barrier(cb)
			e.dispatch(cb, c.dispatch(x, s, 0))
			e.barrier(cb)
			e.must("CopyImageToBuffer", cb.CopyImageToBuffer(c.dst, keep, 0))
		})
		used := []object{{"src Image", c.src}, {"dst Image", c.dst}, {"Sampler", s}, {"Executable", x}, {"out Buffer", c.out}}
		if beforeSubmit {
			releaseUnwaited(e, used, nil)
		}
		f := e.submit(cb)
		if !beforeSubmit {
			releaseUnwaited(e, used, f)
		}
		e.wait(f, "the submission whose images were released")
		check(e, fmt.Sprintf("the storage image released (before Submit: %v)", beforeSubmit), unpack[float32](e.read(keep, 0, keep.Size())), c.doubled(), 1e-6)
	}
}

func testErrImages(e *env) {
	create := func(desc hal.ImageDesc) error { return unmade(e.dev.CreateImage(desc)) }
	wantCode(e, "CreateImage with no format", create(hal.ImageDesc{Width: 4, Height: 4, Usage: hal.ImageStorage}), status.InvalidArgument, nil)
	wantCode(e, "CreateImage of width 0", create(hal.ImageDesc{Format: hal.R32Float, Height: 4, Usage: hal.ImageStorage}), status.InvalidArgument, nil)
	wantCode(e, "CreateImage with no usage", create(hal.ImageDesc{Format: hal.R32Float, Width: 4, Height: 4}), status.InvalidArgument, nil)
	s, err := e.dev.CreateSampler(hal.SamplerDesc{Unnormalized: true, Address: hal.Repeat})
	refused(e, "Sampler", s, err, "CreateSampler of unnormalized coordinates that repeat", status.InvalidArgument)
	for _, f := range hal.Formats() {
		have := e.info.ImageFormats.Of(f)
		for _, usage := range []hal.ImageUsage{hal.ImageStorage, hal.ImageSampled} {
			if have.Has(usage.Features()) {
				continue
			}
			what := fmt.Sprintf("CreateImage of a %s image of format %s, which the device lacks", usage, f)
			err := create(hal.ImageDesc{Format: f, Width: 4, Height: 4, Usage: usage})
			wantCode(e, what, err, status.Unimplemented, hal.ErrUnsupported)
			if err != nil && (!strings.Contains(err.Error(), f.String()) || !strings.Contains(err.Error(), usage.Features().String())) {
				e.Errorf("%s: error %q does not name the format %s and the feature %s", what, err, f, usage.Features())
			}
		}
	}
	if e.info.ImageFormats.Of(hal.R32Float).Has(hal.FormatStorage | hal.FormatSampled) {
		testErrImageBindings(e)
	}
}

func testErrImageBindings(e *env) {
	c := e.newSampleCase(rand.New(rand.NewPCG(47, 48)), 8, 8)
	x := e.executable(kernelSample)
	s := e.sampler(hal.SamplerDesc{Filter: hal.Nearest})
	cb := e.commandBuffer()
	e.must("Begin", cb.Begin())
	bad := func(what string, code status.Code, is error, edit func(d *hal.Dispatch)) {
		e.Helper()
		wantCode(e, "Dispatch with "+what, cb.Dispatch(edited(c.dispatch(x, s, 0), edit)), code, is)
	}
	bad("the storage-only image bound as the sampled one", status.InvalidArgument, nil, func(d *hal.Dispatch) { d.Bindings[0].Image = c.dst })
	bad("the sampled image without its sampler", status.InvalidArgument, nil, func(d *hal.Dispatch) { d.Bindings[0].Sampler = nil })
	bad("a buffer at the storage image's binding", status.InvalidArgument, nil, func(d *hal.Dispatch) { d.Bindings[1] = hal.Binding{Buffer: c.out} })
	bad("an image at the buffer's binding", status.InvalidArgument, nil, func(d *hal.Dispatch) { d.Bindings[2] = hal.Binding{Image: c.dst} })
	if e.info.ImageFormats.Of(hal.RGBA32Float).Has(hal.FormatStorage) {
		other := e.image(hal.ImageDesc{Format: hal.RGBA32Float, Width: 8, Height: 8, Usage: hal.ImageStorage})
		bad("an rgba32f storage image where the module declares r32f", status.InvalidArgument, nil, func(d *hal.Dispatch) { d.Bindings[1].Image = other })
	}
	for _, f := range hal.Formats() {
		if have := e.info.ImageFormats.Of(f); have.Has(hal.FormatSampled) && !have.Has(hal.FormatLinearFilter) {
			img := e.image(hal.ImageDesc{Format: f, Width: 8, Height: 8, Usage: hal.ImageSampled})
			linear := e.sampler(hal.SamplerDesc{Filter: hal.Linear})
			bad(fmt.Sprintf("a linear sampler of a %s image, which the device cannot filter linearly", f), status.Unimplemented, hal.ErrUnsupported,
				func(d *hal.Dispatch) { d.Bindings[0] = hal.Binding{Image: img, Sampler: linear} })
			break
		}
	}
	small := e.buffer(16, hal.DeviceLocal)
	wantCode(e, "CopyBufferToImage from a buffer too small", cb.CopyBufferToImage(small, 0, c.src), status.InvalidArgument, nil)
	wantCode(e, "CopyImageToBuffer into a buffer too small", cb.CopyImageToBuffer(c.dst, small, 0), status.InvalidArgument, nil)
	wantCode(e, "CopyImageToBuffer at an unaligned offset", cb.CopyImageToBuffer(c.dst, c.out, 2), status.InvalidArgument, nil)
	wantCode(e, fmt.Sprintf("Image.Write of 12 bytes into an image of %d", c.src.Desc().Bytes()), c.src.Write(e.ctx, make([]byte, 12)), status.InvalidArgument, nil)
	e.must("Image.Write", c.src.Write(e.ctx, pack(c.texels)))
	e.dispatch(cb, c.dispatch(x, s, 0))
	e.must("End", cb.End())
	e.execute(cb, "the dispatch recorded after the refused ones")
	check(e, "the dispatch recorded after the refused ones", unpack[float32](e.read(c.out, 0, c.out.Size())), c.texels, 0)
}
