#!/usr/bin/env bash
# The main job: set up, build vkbench, measure the default Vulkan device's
# own peak (vkbench peak, stored for percent of peak), then benchmark every
# candidate of every built-in operation on it (vkbench run).
# Arguments replace both: bash scripts/main.sh devices --format json
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
bin/vkbench peak
echo
exec bin/vkbench run
