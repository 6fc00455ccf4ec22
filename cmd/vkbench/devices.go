package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
	"github.com/vkbench/vkbench/vk"
)

func newDevicesCmd() *cobra.Command {
	var validation bool
	var format string
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the Vulkan devices with their identity, limits and memory",
		Long: `List the Vulkan devices with their identity, limits and memory, the default
one marked, and where the driver offers them (NVIDIA, through NVML) their
clocks, power and temperature now, with the highest SM clock and the power
limit. --format json writes the devices as a document of the schema
vkbench.devices/v1 (results/schema/devices-v1.json): snake_case names, as
the results files have, sizes in bytes, UUIDs in hex.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if err := checkFormat(format, "table", "json"); err != nil {
				return err
			}
			// Opened as every command opens it, for the same extensions left off.
			dev := deviceFlags{validation: validation}
			drv, err := hal.OpenDriver(vk.DriverName, dev.openOptions(cmd, nil).Driver)
			if err != nil {
				return openError("", err)
			}
			defer func() { err = status.Join(err, drv.Release()) }()
			infos, err := drv.Enumerate()
			if err != nil {
				return err
			}
			now := readNow(infos)
			if format == "json" {
				return writeDevicesJSON(cmd.OutOrStdout(), infos, now)
			}
			return writeDevicesTable(cmd.OutOrStdout(), infos, now, terminalWidth(cmd.OutOrStdout()))
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "table", "output: table or json")
	cmd.Flags().BoolVar(&validation, "validation", false, "list the devices as they open under the Khronos validation layer, which leaves off the extensions it is older than (\"left off\"); also on when $VKBENCH_VALIDATION is 1")
	return cmd
}

// devicesJSON is what devices --format json writes.
type devicesJSON struct {
	Schema  string       `json:"schema"`
	Devices []deviceJSON `json:"devices"`
}

// deviceJSON is the JSON form of one device: the conventions of the
// results files (snake_case, UUIDs in hex, versions as strings).
type deviceJSON struct {
	Index             int          `json:"index"`
	Default           bool         `json:"default"`
	Backend           string       `json:"backend"`
	Name              string       `json:"name"`
	Type              string       `json:"type"`
	Vendor            string       `json:"vendor"`
	VendorID          uint32       `json:"vendor_id"`
	DeviceID          uint32       `json:"device_id"`
	DriverID          uint32       `json:"driver_id"`
	DriverName        string       `json:"driver_name"`
	DriverInfo        string       `json:"driver_info"`
	DriverVersion     string       `json:"driver_version"`
	DriverVersionRaw  uint32       `json:"driver_version_raw"`
	APIVersion        string       `json:"api_version"`
	Hardware          string       `json:"hardware"`
	DeviceUUID        string       `json:"device_uuid"`
	DriverUUID        string       `json:"driver_uuid"`
	PipelineCacheUUID string       `json:"pipeline_cache_uuid"`
	Limits            limitsJSON   `json:"limits"`
	Features          featuresJSON `json:"features"`
	MemoryHeaps       []heapJSON   `json:"memory_heaps"`
	// Now is the device's conditions at the moment of listing, where
	// they can be read; NowNote says why not.
	Now     *nowJSON `json:"now,omitempty"`
	NowNote string   `json:"now_note,omitempty"`
	// CooperativeMatrices are the matrix multiply-adds the device's
	// cooperative matrices do, as "16x16x16 f16*f16+f32=f32 subgroup (nv)"
	// (hal.ParseCooperativeMatrix reads them).
	CooperativeMatrices []string `json:"cooperative_matrices"`
	// ImageFormats are, for each image format vkbench binds, what the
	// device can do with it ("storage-image", "sampled-image",
	// "linear-filter"; empty: nothing).
	ImageFormats map[string][]string `json:"image_formats"`
	// LeftOff are the device's extensions that vkbench leaves off under a
	// validation layer older than they are (hal.DeviceInfo.Withheld).
	LeftOff []string `json:"left_off"`
}

type limitsJSON struct {
	MaxWorkgroupSize        [3]uint32 `json:"max_workgroup_size"`
	MaxWorkgroupInvocations uint32    `json:"max_workgroup_invocations"`
	MaxWorkgroupCount       [3]uint32 `json:"max_workgroup_count"`
	MaxSharedMemory         uint32    `json:"max_shared_memory_bytes"`
	MaxPushConstantsSize    uint32    `json:"max_push_constants_bytes"`
	MaxStorageBufferRange   uint64    `json:"max_storage_buffer_range_bytes"`
	MinStorageBufferAlign   uint64    `json:"min_storage_buffer_align_bytes"`
	SubgroupSize            uint32    `json:"subgroup_size"`
	MinSubgroupSize         uint32    `json:"min_subgroup_size"`
	MaxSubgroupSize         uint32    `json:"max_subgroup_size"`
	// MaxWorkgroupSubgroups is hal.Limits.MaxComputeWorkgroupSubgroups:
	// absent where the device does not say.
	MaxWorkgroupSubgroups uint32   `json:"max_compute_workgroup_subgroups,omitempty"`
	SubgroupOps           []string `json:"subgroup_ops"`
	TimestampPeriod       float64  `json:"timestamp_period_ns"`
	TimestampValidBits    uint32   `json:"timestamp_valid_bits"`
}

// featuresJSON is hal.Features, each field of the same name.
type featuresJSON struct {
	Float16                   bool `json:"float16"`
	Float64                   bool `json:"float64"`
	Int8                      bool `json:"int8"`
	Int16                     bool `json:"int16"`
	Int64                     bool `json:"int64"`
	Storage16                 bool `json:"storage16"`
	Storage8                  bool `json:"storage8"`
	BFloat16                  bool `json:"bfloat16"`
	BFloat16CooperativeMatrix bool `json:"bfloat16_cooperative_matrix"`
	VulkanMemoryModel         bool `json:"vulkan_memory_model"`
	SubgroupSizeControl       bool `json:"subgroup_size_control"`
	RequiredSubgroupSize      bool `json:"required_subgroup_size"`
	ComputeFullSubgroups      bool `json:"compute_full_subgroups"`
	CooperativeMatrixNV       bool `json:"cooperative_matrix_nv"`
	CooperativeMatrixKHR      bool `json:"cooperative_matrix_khr"`
	// CooperativeMatrixNV2 names the features of VK_NV_cooperative_matrix2
	// the device has.
	CooperativeMatrixNV2 []string `json:"cooperative_matrix_nv2"`
}

// nowJSON is a device's conditions at one moment.
type nowJSON struct {
	Source        string   `json:"source"`
	SMClockMHz    uint32   `json:"sm_clock_mhz"`
	MaxSMClockMHz uint32   `json:"max_sm_clock_mhz,omitempty"`
	MemClockMHz   uint32   `json:"mem_clock_mhz"`
	PowerW        float64  `json:"power_w"`
	PowerLimitW   float64  `json:"power_limit_w,omitempty"`
	TempC         uint32   `json:"temp_c"`
	Reasons       []string `json:"clock_reasons,omitempty"`
}

// deviceNow is what readNow read of one device: a sample, or why none.
type deviceNow struct {
	source string
	sample telemetry.Sample
	why    string
}

// readNow reads each device's conditions once, where it can.
func readNow(infos []hal.DeviceInfo) []deviceNow {
	out := make([]deviceNow, len(infos))
	for i, info := range infos {
		src, why := openTelemetry(info)
		if src == nil {
			out[i].why = why
			continue
		}
		s, err := src.Sample()
		if err != nil {
			out[i].why = status.Message(err)
		} else {
			out[i].source, out[i].sample = src.Name(), s
		}
		_ = src.Close() // read only
	}
	return out
}

// text says the conditions in a line, or why there are none.
func (d deviceNow) text() string {
	if d.source == "" {
		return "not available: " + d.why
	}
	s := d.sample
	text := fmt.Sprintf("SM %d MHz", s.SMClockMHz)
	if s.MaxSMClockMHz > 0 {
		text += fmt.Sprintf(" (max %d)", s.MaxSMClockMHz)
	}
	text += fmt.Sprintf(", memory %d MHz, %.0f W", s.MemClockMHz, s.PowerW)
	if s.PowerLimitW > 0 {
		text += fmt.Sprintf(" of a %.0f W limit", s.PowerLimitW)
	}
	text += fmt.Sprintf(", %d °C", s.TempC)
	if names := s.Reasons.Names(); len(names) > 0 {
		text += ", clocks held by " + strings.Join(names, ", ")
	}
	return text
}

type heapJSON struct {
	Size        uint64 `json:"size_bytes"`
	DeviceLocal bool   `json:"device_local"`
}

func writeDevicesJSON(w io.Writer, infos []hal.DeviceInfo, now []deviceNow) error {
	def := hal.DefaultDevice(infos)
	out := devicesJSON{Schema: results.DevicesSchema, Devices: []deviceJSON{}}
	for i, d := range infos {
		l, f := d.Limits, d.Features
		dj := deviceJSON{Index: d.Index, Default: i == def, Backend: d.Backend, Name: d.Name, Type: d.Type.String(),
			Vendor: hal.VendorName(d.VendorID), VendorID: d.VendorID, DeviceID: d.DeviceID, DriverID: d.DriverID,
			DriverName: d.DriverName, DriverInfo: d.DriverInfo, DriverVersion: d.DriverVersionString(), DriverVersionRaw: d.DriverVersion,
			APIVersion: d.APIVersion.String(), Hardware: d.Hardware(),
			DeviceUUID: hex.EncodeToString(d.DeviceUUID[:]), DriverUUID: hex.EncodeToString(d.DriverUUID[:]), PipelineCacheUUID: hex.EncodeToString(d.PipelineCacheUUID[:]),
			Limits: limitsJSON{MaxWorkgroupSize: l.MaxWorkgroupSize, MaxWorkgroupInvocations: l.MaxWorkgroupInvocations, MaxWorkgroupCount: l.MaxWorkgroupCount,
				MaxSharedMemory: l.MaxSharedMemory, MaxPushConstantsSize: l.MaxPushConstantsSize, MaxStorageBufferRange: l.MaxStorageBufferRange,
				MinStorageBufferAlign: l.MinStorageBufferAlign, SubgroupSize: l.SubgroupSize, MinSubgroupSize: l.MinSubgroupSize, MaxSubgroupSize: l.MaxSubgroupSize,
				MaxWorkgroupSubgroups: l.MaxComputeWorkgroupSubgroups, SubgroupOps: l.SubgroupOps.Names(),
				TimestampPeriod: l.TimestampPeriod, TimestampValidBits: l.TimestampValidBits},
			Features: featuresJSON{f.Float16, f.Float64, f.Int8, f.Int16, f.Int64, f.Storage16, f.Storage8, f.BFloat16, f.BFloat16CooperativeMatrix,
				f.VulkanMemoryModel, f.SubgroupSizeControl, f.RequiredSubgroupSize, f.ComputeFullSubgroups, f.CooperativeMatrixNV, f.CooperativeMatrixKHR, f.CooperativeMatrixNV2.Names()},
			MemoryHeaps: []heapJSON{}, CooperativeMatrices: []string{}, ImageFormats: map[string][]string{},
			LeftOff: append([]string{}, d.Withheld...)}
		for _, fm := range hal.Formats() {
			dj.ImageFormats[fm.String()] = d.ImageFormats.Of(fm).Names()
		}
		for _, m := range d.CooperativeMatrices {
			dj.CooperativeMatrices = append(dj.CooperativeMatrices, m.String())
		}
		if n := now[i]; n.source != "" {
			s := n.sample
			dj.Now = &nowJSON{Source: n.source, SMClockMHz: s.SMClockMHz, MaxSMClockMHz: s.MaxSMClockMHz, MemClockMHz: s.MemClockMHz,
				PowerW: s.PowerW, PowerLimitW: s.PowerLimitW, TempC: s.TempC, Reasons: s.Reasons.Names()}
		} else {
			dj.NowNote = "not available: " + n.why
		}
		for _, h := range d.MemoryHeaps {
			dj.MemoryHeaps = append(dj.MemoryHeaps, heapJSON{Size: h.Size, DeviceLocal: h.DeviceLocal})
		}
		out.Devices = append(out.Devices, dj)
	}
	return writeJSON(w, out)
}

// writeDevicesTable writes each device's identity, limits, features and
// formats as a person reads them: a label and its value, long values
// folded within width.
func writeDevicesTable(w io.Writer, infos []hal.DeviceInfo, now []deviceNow, width tableWidth) error {
	def := hal.DefaultDevice(infos)
	g := width.grid("", -1)
	for i, d := range infos {
		mark := ""
		if i == def {
			mark = " (default)"
		}
		l, f := d.Limits, d.Features
		g.add(fmt.Sprintf("device %d%s", d.Index, mark), d.Name)
		g.add("  type", d.Type.String())
		g.add("  vendor / device", fmt.Sprintf("%s 0x%04x / 0x%04x", hal.VendorName(d.VendorID), d.VendorID, d.DeviceID))
		g.add("  driver", fmt.Sprintf("%s %s (%s)", d.DriverName, d.DriverVersionString(), d.DriverInfo))
		g.add("  Vulkan", d.APIVersion.String())
		g.add("  hardware", d.Hardware())
		g.add("  device UUID", fmt.Sprintf("%x", d.DeviceUUID))
		g.add("  workgroup", fmt.Sprintf("max size %v, max invocations %d, shared memory %d KiB", l.MaxWorkgroupSize, l.MaxWorkgroupInvocations, l.MaxSharedMemory/1024))
		g.add("  subgroup", subgroupControl(d))
		g.add("  subgroup ops", strings.Join(l.SubgroupOps.Names(), " "))
		g.add("  timestamps", fmt.Sprintf("%.3g ns/tick, %d valid bits", l.TimestampPeriod, l.TimestampValidBits))
		g.add("  now", now[i].text())
		for j, h := range d.MemoryHeaps {
			kind := "host"
			if h.DeviceLocal {
				kind = "device-local"
			}
			g.add(fmt.Sprintf("  heap %d", j), fmt.Sprintf("%.1f GiB %s", float64(h.Size)/(1<<30), kind))
		}
		g.add("  features", fmt.Sprintf("float16=%v float64=%v int8=%v int16=%v int64=%v bfloat16=%v (matrices=%v)", f.Float16, f.Float64, f.Int8, f.Int16, f.Int64, f.BFloat16, f.BFloat16CooperativeMatrix))
		g.add("  storage", fmt.Sprintf("16-bit=%v 8-bit=%v, memory model=%v", f.Storage16, f.Storage8, f.VulkanMemoryModel))
		for j, fm := range hal.Formats() {
			label := ""
			if j == 0 {
				label = "  images"
			}
			g.add(label, fmt.Sprintf("%s: %s", fm, d.ImageFormats.Of(fm)))
		}
		g.add("  coopmat", matrixSummary(d))
		for _, m := range d.CooperativeMatrices {
			g.add("", m.String())
		}
		if f.CooperativeMatrixNV2 != 0 {
			g.add("  coopmat2", strings.Join(f.CooperativeMatrixNV2.Names(), " "))
		}
		if len(d.Withheld) > 0 {
			g.add("  left off", strings.Join(d.Withheld, " ")+" (the validation layer is older than them)")
		}
	}
	var b strings.Builder
	g.write(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// matrixSummary says which cooperative-matrix extensions the device has
// and how many multiply-adds each lists (for NV2, granularities), or
// "none".
func matrixSummary(d hal.DeviceInfo) string {
	var parts []string
	for _, api := range []hal.MatrixAPI{hal.MatrixNV, hal.MatrixKHR, hal.MatrixNV2} {
		if !d.Features.CooperativeMatrix(api) {
			continue
		}
		n := 0
		for _, m := range d.CooperativeMatrices {
			if m.API == api {
				n++
			}
		}
		one, many := "shape", "shapes"
		if api == hal.MatrixNV2 {
			one, many = "granularity", "granularities"
		}
		parts = append(parts, api.Extension()+": "+plural(n, one, many))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// subgroupControl says a device's subgroup size and what a kernel may ask
// of it: a size of its own in the device's range (subgroup size control,
// which a compute pipeline may use only where the device says so), full
// subgroups, and how many subgroups a workgroup may then have.
func subgroupControl(d hal.DeviceInfo) string {
	l, f := d.Limits, d.Features
	text := fmt.Sprintf("size %d", l.SubgroupSize)
	switch {
	case !f.SubgroupSizeControl:
		return text + ", fixed: no subgroup size control"
	case !f.RequiredSubgroupSize:
		return text + fmt.Sprintf(", %d to %d, but compute cannot require one", l.MinSubgroupSize, l.MaxSubgroupSize)
	}
	text += fmt.Sprintf("; compute may require %d to %d", l.MinSubgroupSize, l.MaxSubgroupSize)
	if f.ComputeFullSubgroups {
		text += ", full subgroups"
	}
	if l.MaxComputeWorkgroupSubgroups > 0 {
		text += fmt.Sprintf(", at most %d a workgroup", l.MaxComputeWorkgroupSubgroups)
	}
	return text
}
