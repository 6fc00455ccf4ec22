package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

func newDevicesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the Vulkan devices with their identity, limits and memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{})
			if err != nil {
				return err
			}
			defer func() { err = status.Join(err, drv.Release()) }()
			infos, err := drv.Enumerate()
			if err != nil {
				return err
			}
			if asJSON {
				return writeDevicesJSON(cmd.OutOrStdout(), infos)
			}
			return writeDevicesTable(cmd.OutOrStdout(), infos)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

// deviceJSON is the JSON form of one device.
type deviceJSON struct {
	hal.DeviceInfo
	Type          string `json:"Type"`
	Hardware      string `json:"Hardware"`
	DriverVersion string `json:"DriverVersionString"`
	APIVersion    string `json:"APIVersionString"`
	Default       bool   `json:"Default"`
}

func writeDevicesJSON(w io.Writer, infos []hal.DeviceInfo) error {
	def := hal.DefaultDevice(infos)
	out := make([]deviceJSON, len(infos))
	for i, d := range infos {
		out[i] = deviceJSON{DeviceInfo: d, Type: d.Type.String(), Hardware: d.Hardware(),
			DriverVersion: d.DriverVersionString(), APIVersion: d.APIVersion.String(), Default: i == def}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeDevicesTable(w io.Writer, infos []hal.DeviceInfo) error {
	def := hal.DefaultDevice(infos)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, d := range infos {
		mark := ""
		if i == def {
			mark = " (default)"
		}
		fmt.Fprintf(tw, "device %d%s\t%s\n", d.Index, mark, d.Name)
		fmt.Fprintf(tw, "  type\t%s\n", d.Type)
		fmt.Fprintf(tw, "  vendor / device\t%s 0x%04x / 0x%04x\n", hal.VendorName(d.VendorID), d.VendorID, d.DeviceID)
		fmt.Fprintf(tw, "  driver\t%s %s (%s)\n", d.DriverName, d.DriverVersionString(), d.DriverInfo)
		fmt.Fprintf(tw, "  Vulkan\t%s\n", d.APIVersion)
		fmt.Fprintf(tw, "  hardware\t%s\n", d.Hardware())
		fmt.Fprintf(tw, "  device UUID\t%x\n", d.DeviceUUID)
		l := d.Limits
		fmt.Fprintf(tw, "  workgroup\tmax size %v, max invocations %d, shared memory %d KiB\n", l.MaxWorkgroupSize, l.MaxWorkgroupInvocations, l.MaxSharedMemory/1024)
		fmt.Fprintf(tw, "  subgroup\tsize %d (%d to %d, control %v), ops %#x\n", l.SubgroupSize, l.MinSubgroupSize, l.MaxSubgroupSize, d.Features.SubgroupSizeControl, uint32(l.SubgroupOps))
		fmt.Fprintf(tw, "  timestamps\t%.3g ns/tick, %d valid bits\n", l.TimestampPeriod, l.TimestampValidBits)
		for j, h := range d.MemoryHeaps {
			kind := "host"
			if h.DeviceLocal {
				kind = "device-local"
			}
			fmt.Fprintf(tw, "  heap %d\t%.1f GiB %s\n", j, float64(h.Size)/(1<<30), kind)
		}
		f := d.Features
		fmt.Fprintf(tw, "  features\tfloat16=%v float64=%v int8=%v int16=%v int64=%v bfloat16=%v\n", f.Float16, f.Float64, f.Int8, f.Int16, f.Int64, f.BFloat16)
		fmt.Fprintf(tw, "  storage\t16-bit=%v 8-bit=%v, memory model=%v\n", f.Storage16, f.Storage8, f.VulkanMemoryModel)
		fmt.Fprintf(tw, "  coopmat\t%s\n", matrixSummary(d))
		for _, m := range d.CooperativeMatrices {
			fmt.Fprintf(tw, "    \t%s\n", m)
		}
	}
	return tw.Flush()
}

// matrixSummary says which cooperative-matrix extensions the device has
// and how many multiply-adds each lists, or "none".
func matrixSummary(d hal.DeviceInfo) string {
	var parts []string
	for _, api := range []hal.MatrixAPI{hal.MatrixNV, hal.MatrixKHR} {
		if !d.Features.CooperativeMatrix(api) {
			continue
		}
		n := 0
		for _, m := range d.CooperativeMatrices {
			if m.API == api {
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %d shapes", api.Extension(), n))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
