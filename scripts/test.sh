#!/usr/bin/env bash
# The whole test suite: set up, check formatting, vet, lint (staticcheck and
# errcheck, versions pinned in tools/go.mod), then every test with the race
# detector on a real Vulkan device (lavapipe where there is no GPU) with the
# Khronos validation layer on. Tests that need Vulkan fail rather than skip.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
vkbench_setup
# Debian 13's glslc, pinned, for the kernels Debian 12's cannot build
# (the shaders test rebuilds every kernel and compares).
bash scripts/glslc13.sh

step() { printf '\n== %s\n' "$*" >&2; }

step "Vulkan devices"
vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverName' >&2 || {
	echo "test: no Vulkan device found; lavapipe (mesa-vulkan-drivers) should provide one" >&2
	exit 1
}

step gofmt
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './tools/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi

step "go vet"
go vet ./...

step "staticcheck and errcheck"
mkdir -p bin
(cd tools && go build -o ../bin/ honnef.co/go/tools/cmd/staticcheck github.com/kisielk/errcheck)
bin/staticcheck ./...
bin/errcheck -exclude tools/errcheck-excludes.txt ./...

step "bench: the figures' provenance (python3 unittest)"
python3 -m unittest discover -s bench -p 'test_*.py'

step "go test -race"
export VKBENCH_REQUIRE_VALIDATION=1
# Every vkbench command the tests run validates too; a message fails them.
export VKBENCH_VALIDATION=1
# Lavapipe keeps compiled shaders under $HOME; tests that unset HOME would
# otherwise have Mesa say on stderr that it has nowhere to put them.
export MESA_SHADER_CACHE_DIR="$PWD/bin/mesa-shader-cache"
# Files the tests keep (the browser test's screenshot of the HTML report)
# go under bin/test-artifacts/_artifacts, and are listed at the end.
rm -rf bin/test-artifacts
mkdir -p bin/test-artifacts
go test -race -count=1 -timeout 60m -artifacts -outputdir "$PWD/bin/test-artifacts" ${VKBENCH_TEST_FLAGS:-} ./... 2>&1 | tee bin/test.log
find bin/test-artifacts -type f | sed 's/^/test artifact: /' >&2
