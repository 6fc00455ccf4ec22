package search_test

import (
	"bytes"
	"flag"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/store"
)

// The synthetic tuning log of testdata/search/gemm-4096-model.jsonl is
// what an exhaustive search of gemm's space at 4096³ on an H200 would
// record if the H200 ran gemm_regblock as the model below says: a
// deterministic stand-in for a recorded log, so that the strategies are
// tested on a landscape with the structure of a real one (a narrow region
// of good tilings, params that interact, cliffs where registers spill)
// until a log recorded on the GPU joins it (bench/search.sh records one;
// any *.jsonl in that folder is replayed). Regenerate it with
//
//	go test ./search -run TestSyntheticLog -update-search-log
var updateSearchLog = flag.Bool("update-search-log", false, "rewrite testdata/search/gemm-4096-model.jsonl from the GEMM timing model")

const syntheticLog = "testdata/search/gemm-4096-model.jsonl"

// h200 is the device the model describes: an NVIDIA H200's limits as
// Vulkan reports them, and what the model needs of its SMs.
var h200 = hal.DeviceInfo{
	Name: "NVIDIA H200 (model)", Type: hal.DiscreteGPU, VendorID: hal.VendorNVIDIA,
	Limits: hal.Limits{
		MaxWorkgroupSize: [3]uint32{1024, 1024, 64}, MaxWorkgroupInvocations: 1024,
		MaxWorkgroupCount: [3]uint32{1<<31 - 1, 65535, 65535}, MaxSharedMemory: 48 << 10,
		MaxPushConstantsSize: 256, MaxStorageBufferRange: 1<<32 - 1, SubgroupSize: 32,
	},
}

const (
	smCount     = 132
	regsPerSM   = 65536
	sharedPerSM = 228 << 10
	threadsSM   = 2048
	blocksSM    = 32
	peakFLOPs   = 2 * smCount * 128 * 1.98e9 // fp32 FMA lanes at the maximum clock
	l2Bandwidth = 10e12                      // bytes/s the blocks' loads are served at, mostly from L2
)

// gemmModel returns the modelled time in seconds of one 4096³ product by
// gemm_regblock with configuration c, and its modelled compile time:
//
//   - each invocation's TM×TN micro-tile does TM·TN FMAs per step of k for
//     TM/4 + TN/4 vec4 reads of shared memory; an SM issues 4 warp-FMAs
//     and one 16-byte-per-lane shared read every 4 clocks, so a step costs
//     max(TM·TN/4, TM+TN) clocks a warp, and the FMA units are busy
//     TM·TN/4 of them;
//   - registers: TM·TN accumulators, TM + TN operands, the vec4s of a
//     phase of the next slice, and 24 of addressing; past 255 they spill,
//     each extra register costing 1/48 more time;
//   - occupancy: blocks an SM holds by threads, registers and shared
//     memory; fewer than 8 warps hide latency less (1 − ½e^(−warps/8));
//   - each slice of k ends with stores to shared memory and a barrier:
//     60 clocks and 4 a stored vec4, against BK steps of compute, halved
//     by the other resident blocks; each phase past the first adds 10;
//   - wave quantization: the blocks fill ⌈blocks / (132 · per SM)⌉ waves;
//   - memory: every block reads its (BM + BN)·K floats, at L2 bandwidth;
//   - A's rows swizzled (SWZ) instead of padded: no padding in shared
//     memory, 8 clocks a slice of index arithmetic;
//   - loads without bounds checks (EXACT): 40% less slice overhead, the
//     loop being half the code;
//   - the compiler's luck: ±3%, a hash of the configuration.
func gemmModel(c kernels.Config) (seconds, compile float64) {
	const n = 4096
	bm, bn, bk, tx, ty, ph := c["BM"], c["BN"], c["BK"], c["TX"], c["TY"], c["PH"]
	swz, exact := c["SWZ"], c["EXACT"]
	tm, tn := bm/ty, bn/tx
	nt := tx * ty
	al := ceilDiv(bm*bk/ph/4, nt)
	bl := ceilDiv(bk*bn/ph/4, nt)
	regs := tm*tn + tm + tn + 4*(al+bl) + 24
	spill := 1.0
	if regs > 255 {
		spill += float64(regs-255) / 48
		regs = 255
	}
	shared := 16 * (2*bk*(bm/4+1-swz) + 2*bk*bn/4)
	perSM := min(blocksSM, threadsSM/nt, regsPerSM/(roundUp(regs, 8)*nt), sharedPerSM/(shared+1024))
	perSM = max(perSM, 1)
	warps := float64(perSM * nt / 32)
	fma := float64(tm*tn) / 4
	step := math.Max(fma, float64(tm+tn)) + 0.15*math.Min(fma, float64(tm+tn))
	effIssue := fma / step
	effOcc := 1 - 0.5*math.Exp(-warps/8)
	sliceCompute := float64(bk) * step
	sliceOverhead := (60 + 4*float64(al+bl)*float64(ph) + 10*float64(ph-1) + 8*float64(swz)) / math.Max(1, warps/float64(nt/32)/2)
	if exact == 1 {
		sliceOverhead *= 0.6
	}
	effSlice := sliceCompute / (sliceCompute + sliceOverhead)
	blocks := ceilDiv(n, bm) * ceilDiv(n, bn)
	waves := ceilDiv(blocks, smCount*perSM)
	effWave := float64(blocks) / float64(waves*smCount*perSM)
	compute := 2 * n * n * n / peakFLOPs / (effIssue * effOcc * effSlice * effWave) * spill
	memory := float64(blocks) * float64(bm+bn) * n * 4 / l2Bandwidth
	h := fnv.New64a()
	h.Write([]byte(gemmSpaceName(c)))
	luck := 0.97 + 0.06*float64(h.Sum64()%1000)/999
	seconds = math.Max(compute, memory) * luck
	compile = 0.05 + 0.0015*float64(tm*tn+4*(al+bl))*float64(bk)/8
	return seconds, compile
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
func roundUp(a, b int) int { return ceilDiv(a, b) * b }

func gemmSpaceName(c kernels.Config) string {
	op, _ := catalogue.Lookup("gemm")
	return kernels.SpaceOf(op).Name(c)
}

// syntheticGEMMLog is the log the model makes: every valid configuration
// of gemm's space at 4096³ on the model's H200, measured as a search
// measures (a median with a ±0.5% interval from 10 samples).
func syntheticGEMMLog(t testing.TB) *search.TuneLog {
	op, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	space := kernels.SpaceOf(op)
	pts, err := space.Points(op.Dims(), kernels.SizeOf(4096, 4096, 4096), h200)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := &search.TuneLog{Header: search.LogHeader{Format: search.LogFormat,
		Table: store.Table{Hardware: "model-of-nvidia-h200", Tuner: "builtin"}, Key: "gemm/f32/4096x4096x4096", Mode: "hot",
		Space: search.LogSpaceOf(space), Points: len(pts.Configs), Device: h200.Name, Version: "model", Time: when}}
	cands := pts.Op.Candidates()
	flops := 2 * math.Pow(4096, 3)
	for i, c := range pts.Configs {
		sec, compile := gemmModel(c)
		s := stats.Stats{Median: sec, Lo: sec * 0.995, Hi: sec * 1.005, Min: sec * 0.99, Max: sec * 1.02, Spread: 0.03, N: 10, Batch: 1}
		l.Evals = append(l.Evals, search.LogRecord{ID: "model-" + cands[i].Name, Config: c,
			Result: results.Result{
				Index:       i,
				Name:        cands[i].Name,
				Measurement: results.Measurement{Outcome: results.Measured, Stats: &s, Bytes: 4 * 3 * 4096 * 4096, Flops: flops},
			},
			CompileSeconds: compile, MeasureSeconds: 0.12 + 13*sec, Time: when.Add(time.Duration(i) * time.Second)})
	}
	return l
}

// TestSyntheticLog checks that the checked-in synthetic log is what the
// model makes (or, with -update-search-log, writes it).
func TestSyntheticLog(t *testing.T) {
	var buf bytes.Buffer
	if err := search.WriteTuneLog(&buf, syntheticGEMMLog(t)); err != nil {
		t.Fatal(err)
	}
	if *updateSearchLog {
		if err := os.MkdirAll(filepath.Dir(syntheticLog), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(syntheticLog, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(syntheticLog)
	if err != nil {
		t.Fatalf("%v (go test ./search -run TestSyntheticLog -update-search-log writes it)", err)
	}
	if diff := cmp.Diff(string(have), buf.String()); diff != "" {
		t.Errorf("%s is not what the model makes (-checked in +model); rerun with -update-search-log:\n%s", syntheticLog, diff)
	}
}
