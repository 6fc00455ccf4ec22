#!/usr/bin/env bash
# Sourced by main.sh and test.sh: makes sure this Debian machine has what
# vkbench needs, installing only what is missing, then puts Go on PATH.
#
# Needs: Debian 12 (apt), root or sudo, Go >= 1.21 (go.mod's toolchain line
# brings 1.26 through the Go module proxy when the installed Go is older).

# Packages: the Vulkan loader, lavapipe (Mesa's Vulkan driver on the CPU, the
# device used where there is no GPU), the Khronos validation layer, the
# shader compiler and the SPIR-V validator, a C compiler for cgo,
# Chromium, in which the tests open the HTML report (run headless), with
# the charts' font (Liberation Sans), Python, which runs bench/'s own
# tests, and curl and xz, with which scripts/glslc13.sh fetches the newer
# shader compiler that the tests check a few kernels with, and redis-server,
# the shared tune store the tests of its tier start (on a free port, with a
# password, in a temporary folder).
VKBENCH_PACKAGES=(libvulkan1 mesa-vulkan-drivers vulkan-validationlayers vulkan-tools glslc spirv-tools gcc libc6-dev chromium fonts-liberation python3 curl xz-utils redis-server)

vkbench_setup() {
	local missing=()
	for p in "${VKBENCH_PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	if ((${#missing[@]})); then
		echo "setup: installing ${missing[*]}" >&2
		local sudo=""
		if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
		$sudo apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
	fi
	if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
		export PATH="/usr/local/go/bin:$PATH"
	fi
	if ! command -v go >/dev/null 2>&1; then
		echo "setup: no Go toolchain found; install Go 1.21 or later (https://go.dev/doc/install) and run again" >&2
		return 1
	fi
	export PATH="$(go env GOPATH)/bin:$PATH"
	# go-nvml's cgo declares NVML functions the header marks deprecated;
	# say nothing of them on every build.
	export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations"
}
