#!/usr/bin/env bash
# Fetches the newer shader compiler that a few kernels need into
# bin/tools/glslc13 (or the folder given), once: Debian 13's glslc
# (shaderc 2025.2, glslang 15.1) and spirv-val (SPIRV-Tools 2025.1).
# Debian 12's glslc (2023.2) does not know GL_NV_cooperative_matrix2, and
# its spirv-val does not know SPV_NV_cooperative_matrix2; a source that
# says "// target-env: vulkan1.3" is built with these (see
# internal/glslc).
#
# The compiler's packages are pinned by version and SHA-256: they decide
# the SPIR-V's bytes. The C and C++ runtimes they run on (Debian 13's
# libc, newer than Debian 12's) are Debian 13's current ones. Everything
# is checked against Debian 13's signed package index (InRelease, checked
# with gpgv and Debian's archive keyring), and run through Debian 13's own
# dynamic loader, so nothing is installed on the system.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/bin/tools/glslc13}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
pinned=(
	"glslc 2025.2-1 e05374965709159303041b104d4a26022d6ac5eb8296450364d66ae864a20367"
	"libshaderc1 2025.2-1 2a67c8f784c65e1aa0d251819c020917405b490fbb543c6a73a52a631e476463"
	"spirv-tools 2025.1~rc1-1 2cc272ef1340cf0b47de6c5fcccaf91574d7a8f4061abb718d6c639463e85aab"
)
runtime=(libc6 libstdc++6 libgcc-s1)

stamp="$dest/pinned.txt"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${pinned[*]}" ] && [ -x "$dest/bin/glslc" ]; then
	exit 0
fi
if [ "$(dpkg --print-architecture)" != amd64 ]; then
	echo "glslc13: only amd64 is pinned here; this machine is $(dpkg --print-architecture)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "glslc13: $*" >&2
	exit 1
}

echo "glslc13: fetching Debian 13's glslc and spirv-tools into $dest" >&2
curl -fsS "$mirror/dists/trixie/InRelease" -o "$tmp/InRelease" || fail "cannot download $mirror/dists/trixie/InRelease"
gpgv --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" 2>"$tmp/gpgv.txt" ||
	fail "Debian 13's InRelease does not carry a good signature of Debian's archive keys: $(cat "$tmp/gpgv.txt")"
index=main/binary-amd64/Packages.xz
sum=$(awk -v f="$index" '/^SHA256:/ { in256 = 1; next } /^[^ ]/ { in256 = 0 } in256 && $3 == f { print $1 }' "$tmp/Release")
[ -n "$sum" ] || fail "the signed Release lists no SHA-256 of $index"
curl -fsS "$mirror/dists/trixie/$index" -o "$tmp/Packages.xz" || fail "cannot download $index"
echo "$sum  $tmp/Packages.xz" | sha256sum -c --quiet - >/dev/null || fail "$index does not match the signed Release's SHA-256"
xz -dc "$tmp/Packages.xz" >"$tmp/Packages"

# lookup PACKAGE prints its version, file and SHA-256 from the index.
lookup() {
	awk -v p="$1" '$0 == "Package: " p { f = 1 } f && /^Version:/ { v = $2 } f && /^Filename:/ { n = $2 }
		f && /^SHA256:/ { s = $2 } f && /^$/ { print v, n, s; exit }' "$tmp/Packages"
}
fetch() { # fetch FILE SHA256
	local deb="$tmp/$(basename "$1")"
	curl -fsS "$mirror/$1" -o "$deb" || fail "cannot download $mirror/$1"
	echo "$2  $deb" | sha256sum -c --quiet - >/dev/null || fail "$1 does not match its SHA-256 $2"
	dpkg-deb -x "$deb" "$tmp/root"
}
mkdir -p "$tmp/root"
for p in "${pinned[@]}"; do
	read -r name version sha <<<"$p"
	read -r v file s <<<"$(lookup "$name")"
	[ "$v" = "$version" ] ||
		fail "Debian 13 now has $name ${v:-(none)}, not the pinned $version; pin the new one in $0 and rebuild the SPIR-V (go generate ./shaders/...)"
	[ "$s" = "$sha" ] ||
		fail "Debian 13's signed index gives $name $version the SHA-256 $s, not the pinned $sha: the package is not the one pinned"
	fetch "$file" "$sha"
done
for name in "${runtime[@]}"; do
	read -r v file s <<<"$(lookup "$name")"
	[ -n "$file" ] || fail "Debian 13's index has no $name"
	fetch "$file" "$s"
done

rm -rf "$dest"
mkdir -p "$dest/bin"
mv "$tmp/root" "$dest/root"
for tool in glslc spirv-val spirv-dis; do
	cat >"$dest/bin/$tool" <<WRAP
#!/bin/sh
# Debian 13's $tool, through Debian 13's own loader and libraries.
lib="\$(dirname "\$0")/../root/usr/lib/x86_64-linux-gnu"
exec "\$lib/ld-linux-x86-64.so.2" --library-path "\$lib" "\$(dirname "\$0")/../root/usr/bin/$tool" "\$@"
WRAP
	chmod +x "$dest/bin/$tool"
done
"$dest/bin/glslc" --version >"$tmp/version.txt" || fail "the fetched glslc does not run: $(cat "$tmp/version.txt")"
head -n 1 "$tmp/version.txt" >&2
echo "${pinned[*]}" >"$stamp"
