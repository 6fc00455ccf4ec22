#!/usr/bin/env bash
# The main job: set up, build vkbench, and benchmark every candidate of
# every built-in operation on the default Vulkan device (vkbench run).
# Arguments replace "run": bash scripts/main.sh devices --json
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
vkbench_setup
mkdir -p bin
go build -o bin/vkbench ./cmd/vkbench
echo "built bin/vkbench" >&2
if (($#)); then
	exec bin/vkbench "$@"
fi
exec bin/vkbench run
