package main

import (
	"bytes"
	"context"
	"github.com/vkbench/vkbench/internal/devtest"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/internal/testenv"
)

// TestRun runs the program as main does, twice on one cache file: the
// first run tunes, the second reads the answer; both check the winner's
// result against the CPU.
func TestRun(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "autotune.db")
	for _, run1 := range []string{"tunes", "reads the cache"} {
		var out bytes.Buffer
		err := run(context.Background(), []string{"-n", "100003", "-a", "-0.75", "-budget", "200ms", "-cache", cache}, &out)
		t.Logf("the run that %s:\n%s", run1, out.String())
		if err != nil {
			if strings.Contains(err.Error(), "Vulkan") {
				testenv.Unavailable(t, "the run that %s: %v", run1, err)
			}
			t.Fatalf("the run that %s: %v", run1, err)
		}
		if !strings.Contains(out.String(), "ok: 100003 elements") {
			t.Errorf("the run that %s did not say ok", run1)
		}
	}
}

// TestEveryCandidate checks each kernel at sizes the tuner does not try:
// the tuner measures on powers of two, while the winner runs on any size,
// so the tail of the vec4 kernel and a grid-stride loop over more than one
// pass are tested here, with the validation layer on.
func TestEveryCandidate(t *testing.T) {
	devtest.NeedVulkan(t)
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{
		Validation: true,
		OnMessage:  func(m vkbench.Message) { t.Errorf("validation %s [%s]: %s", m.Severity, m.ID, m.Text) },
	})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan device with validation: %v", err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, k := range saxpy.Candidates {
		p, err := dev.Build(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 3, 4, 5, 1003, 64*256*2 + 7} {
			x, y := random(n, 3), random(n, 4)
			xb, err := vkbench.Upload(ctx, dev, x)
			if err != nil {
				t.Fatal(err)
			}
			yb, err := vkbench.Upload(ctx, dev, y)
			if err != nil {
				t.Fatal(err)
			}
			zb, err := vkbench.NewBuffer[float32](ctx, dev, n)
			if err != nil {
				t.Fatal(err)
			}
			if err := dev.Run(ctx, p, groups(k, n), vkbench.Push(uint32(n), float32(3)), xb, yb, zb); err != nil {
				t.Fatal(err)
			}
			z := make([]float32, n)
			if err := zb.Read(ctx, z); err != nil {
				t.Fatal(err)
			}
			if err := check(z, 3, x, y); err != nil {
				t.Errorf("%s at N=%d: %v", k.Name, n, err)
			}
			for _, b := range []interface{ Release() error }{xb, yb, zb} {
				if err := b.Release(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := p.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckFails makes sure the check that decides the exit status can
// fail: one element off by more than the tolerance, or a NaN.
func TestCheckFails(t *testing.T) {
	x, y := random(100, 1), random(100, 2)
	z := make([]float32, 100)
	for i := range z {
		z[i] = 2*x[i] + y[i]
	}
	if err := check(z, 2, x, y); err != nil {
		t.Fatalf("a right result fails: %v", err)
	}
	z[42] += 1e-3
	if err := check(z, 2, x, y); err == nil || !strings.Contains(err.Error(), "z[42]") {
		t.Errorf("z[42] off by 1e-3: %v, want an error naming z[42]", err)
	}
	z[42] = float32(math.NaN())
	if err := check(z, 2, x, y); err == nil {
		t.Error("a NaN passes")
	}
}
