package hal

import (
	"context"
	"strings"

	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/status"
)

// Format is the format of an image's texels. Its names are GLSL's image
// format qualifiers (layout(r32f) and friends), which a storage image's
// SPIR-V declares.
type Format uint8

// The formats vkbench binds. The zero Format is none.
const (
	// R32Float is one 32-bit float per texel ("r32f").
	R32Float Format = iota + 1
	// RGBA32Float is four 32-bit floats per texel ("rgba32f").
	RGBA32Float
	// RGBA8 is four 8-bit unsigned normalized components per texel
	// ("rgba8"): the byte b reads as b/255.
	RGBA8
	// RGBA8SRGB is RGBA8 whose colour components are sRGB-encoded
	// ("rgba8_srgb"); sampled only on most devices, never a storage image.
	RGBA8SRGB
	// R32Uint is one 32-bit unsigned integer per texel ("r32ui").
	R32Uint

	numFormats
)

var formatNames = [numFormats]string{R32Float: "r32f", RGBA32Float: "rgba32f", RGBA8: "rgba8", RGBA8SRGB: "rgba8_srgb", R32Uint: "r32ui"}

// Formats lists every Format, in order.
func Formats() []Format {
	out := make([]Format, 0, numFormats-1)
	for f := R32Float; f < numFormats; f++ {
		out = append(out, f)
	}
	return out
}

// ParseFormat returns the Format named name ("r32f", "rgba8", ...).
func ParseFormat(name string) (Format, error) {
	if f, ok := parseName(name, Formats()...); ok {
		return f, nil
	}
	return 0, status.Newf(status.InvalidArgument, "hal: unknown image format %q (want one of %s)", name, strings.Join(formatNames[1:], ", "))
}

// String returns the format's name, such as "rgba8".
func (f Format) String() string { return enum.Name(f, formatNames[:], "format(?)") }

// Valid reports whether f is one of the formats.
func (f Format) Valid() bool { return f > 0 && f < numFormats }

// Components is the number of components of a texel.
func (f Format) Components() int { return f.texel().components }

// TexelBytes is the size of one texel in bytes.
func (f Format) TexelBytes() int { return f.texel().bytes }

type texel struct{ components, bytes int }

var texels = [numFormats]texel{R32Float: {1, 4}, RGBA32Float: {4, 16}, RGBA8: {4, 4}, RGBA8SRGB: {4, 4}, R32Uint: {1, 4}}

// texel is f's texel; zero for a Format that is not one.
func (f Format) texel() texel {
	if !f.Valid() {
		return texel{}
	}
	return texels[f]
}

// FormatFeatures say what a device can do with images of a format, as
// Vulkan's optimal-tiling VkFormatFeatureFlags do.
type FormatFeatures uint8

const (
	// FormatStorage is use as a storage image (STORAGE_IMAGE).
	FormatStorage FormatFeatures = 1 << iota
	// FormatSampled is use as a sampled image (SAMPLED_IMAGE).
	FormatSampled
	// FormatLinearFilter is sampling with a linear filter
	// (SAMPLED_IMAGE_FILTER_LINEAR).
	FormatLinearFilter
)

var formatFeatureNames = []string{"storage-image", "sampled-image", "linear-filter"}

// Has reports whether every feature of x is in f.
func (f FormatFeatures) Has(x FormatFeatures) bool { return f&x == x }

// Names lists the names of the features in f, in bit order.
func (f FormatFeatures) Names() []string { return flagNames(f, formatFeatureNames) }

// String names the features, joined by "+", or says "none".
func (f FormatFeatures) String() string { return flagsString(f, formatFeatureNames) }

// ImageFormats are a device's FormatFeatures, indexed by Format.
type ImageFormats [numFormats]FormatFeatures

// Of returns the features of format f; none for a Format that is not one.
func (s ImageFormats) Of(f Format) FormatFeatures {
	if !f.Valid() {
		return 0
	}
	return s[f]
}

// ImageUsage says how an image may be bound.
type ImageUsage uint8

const (
	// ImageStorage is a storage image: texels read and written by
	// coordinates (GLSL image2D, imageLoad, imageStore).
	ImageStorage ImageUsage = 1 << iota
	// ImageSampled is a sampled image, bound with a sampler (GLSL
	// sampler2D, texture, texelFetch).
	ImageSampled
)

// Has reports whether every usage of x is in u.
func (u ImageUsage) Has(x ImageUsage) bool { return u&x == x }

// String returns "storage", "sampled" or "storage+sampled".
func (u ImageUsage) String() string { return enum.Name(u, imageUsageNames[:], "usage(?)") }

var imageUsageNames = [...]string{ImageStorage: "storage", ImageSampled: "sampled", ImageStorage | ImageSampled: "storage+sampled"}

// Features returns the format features usage u needs: ImageStorage and
// ImageSampled have the bits of FormatStorage and FormatSampled.
func (u ImageUsage) Features() FormatFeatures {
	return FormatFeatures(u & (ImageStorage | ImageSampled))
}

// ImageDesc describes a 2D image to create. Every image can also be the
// source and destination of copies to and from buffers.
type ImageDesc struct {
	Format        Format
	Width, Height int
	// Usage is how the image may be bound; at least one.
	Usage ImageUsage
	// Label names the image in errors and debuggers.
	Label string
}

// Bytes is the size of the image's texels, tightly packed: what Write
// takes and Read returns.
func (d ImageDesc) Bytes() int64 {
	return int64(d.Width) * int64(d.Height) * int64(d.Format.TexelBytes())
}

// Image is a 2D image in device memory. Between the calls and commands
// that use it, its contents are rows of Width texels, Height rows, the
// first row first, tightly packed.
type Image interface {
	// Desc is the description it was created with.
	Desc() ImageDesc
	// Write replaces the whole image by data, of Desc().Bytes() bytes, and
	// returns when the texels are in the image. It must not race with GPU
	// work that uses the image. Where it fails, the texels are undefined.
	Write(ctx context.Context, data []byte) error
	// Read copies the whole image into dst, of Desc().Bytes() bytes. Where
	// it fails, dst is undefined.
	Read(ctx context.Context, dst []byte) error
	// Release gives up the image; it is freed once nothing uses it.
	Release() error
}

// Filter is how a sampler reads between texels.
type Filter uint8

const (
	// Nearest reads the nearest texel.
	Nearest Filter = iota
	// Linear interpolates the four nearest texels; the image's format
	// must have FormatLinearFilter.
	Linear
)

// String returns "nearest" or "linear".
func (f Filter) String() string { return enum.Name(f, []string{Linear: "linear"}, "nearest") }

// AddressMode is what a sampler reads outside the image.
type AddressMode uint8

const (
	// ClampToEdge reads the nearest edge texel.
	ClampToEdge AddressMode = iota
	// Repeat wraps the coordinates around.
	Repeat
)

// String returns "clamp" or "repeat".
func (a AddressMode) String() string { return enum.Name(a, []string{Repeat: "repeat"}, "clamp") }

// SamplerDesc describes a sampler to create.
type SamplerDesc struct {
	Filter  Filter
	Address AddressMode
	// Unnormalized takes coordinates in texels, [0, Width) × [0, Height),
	// instead of [0, 1) × [0, 1); it needs ClampToEdge.
	Unnormalized bool
	// Label names the sampler in errors.
	Label string
}

// Sampler says how a sampled image is read.
type Sampler interface {
	// Desc is the description it was created with.
	Desc() SamplerDesc
	// Release gives up the sampler; it is freed once no recording uses it.
	Release() error
}

// BindingKind is what a binding of an executable holds.
type BindingKind uint8

const (
	// StorageBufferBinding is a storage buffer (Binding.Buffer).
	StorageBufferBinding BindingKind = iota
	// StorageImageBinding is a storage image (Binding.Image, created with
	// ImageStorage).
	StorageImageBinding
	// SampledImageBinding is a combined image and sampler
	// (Binding.Image, created with ImageSampled, and Binding.Sampler).
	SampledImageBinding
	// UniformBufferBinding is a uniform buffer (Binding.Buffer): a range
	// of at most Limits.MaxUniformBufferRange bytes, at an offset that is
	// a multiple of Limits.MinUniformBufferAlign.
	UniformBufferBinding
)

// IsBuffer reports whether the binding holds a buffer (Binding.Buffer)
// rather than an image.
func (k BindingKind) IsBuffer() bool { return k == StorageBufferBinding || k == UniformBufferBinding }

// String returns "storage buffer", "storage image", "sampled image" or
// "uniform buffer".
func (k BindingKind) String() string { return enum.Name(k, bindingKindNames[:], "binding kind(?)") }

var bindingKindNames = [...]string{StorageBufferBinding: "storage buffer", StorageImageBinding: "storage image", SampledImageBinding: "sampled image",
	UniformBufferBinding: "uniform buffer"}
