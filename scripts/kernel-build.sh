#!/bin/sh
# scalebench-kernel-build: build the kernel tree in the current directory at its checked-out
# commit into CACHE/<sha>/bzImage (bisect --kernel-tree's prepare step; usable by hand).
#
#   scalebench-kernel-build CACHE CONFIG
#
# CONFIG is a whole .config (it starts with the "Automatically generated file" header make
# writes), or a fragment merged onto `make tinyconfig` (jobs/kernel/guest.config).  The build is out of tree, in CACHE/build (one build directory for every commit,
# so a step rebuilds only what the commit changed), with `make olddefconfig`, LOCALVERSION
# naming the commit (uname -r in the guest ends in -g<sha12>), ccache when it is installed,
# under nice, on every CPU.  A commit whose bzImage is cached is not built again.  Exit 0 with
# the image in place; non-zero when the build failed (the log's tail on stderr: bisect skips
# the commit and keeps the whole log in its commit log).
set -eu

if [ $# -ne 2 ]; then
	echo "usage: scalebench-kernel-build CACHE CONFIG (in the kernel tree)" >&2
	exit 2
fi
cache=$1
config=$2
[ -f "$config" ] || {
	echo "scalebench-kernel-build: config '$config': no such file" >&2
	exit 2
}
[ -f Makefile ] && [ -f Kconfig ] && [ -d kernel ] || {
	echo "scalebench-kernel-build: $(pwd) is not a kernel tree (no Makefile, Kconfig, kernel/)" >&2
	exit 2
}
sha=$(git rev-parse HEAD)
out=$cache/$sha
if [ -s "$out/bzImage" ]; then
	echo "scalebench-kernel-build: $sha: cached in $out"
	exit 0
fi
build=$cache/build
mkdir -p "$build" "$out"
config=$(realpath "$config")
cc=gcc
command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
jobs=$(nproc 2>/dev/null || echo 1)
make_k() {
	nice -n 10 make -s O="$build" CC="$cc" LOCALVERSION="-g$(echo "$sha" | cut -c1-12)" "$@"
}

start=$(date +%s)
if head -3 "$config" | grep -q "Automatically generated file"; then
	cp "$config" "$build/.config"
else
	make_k tinyconfig >/dev/null
	KCONFIG_CONFIG="$build/.config" ./scripts/kconfig/merge_config.sh -m -O "$build" \
		"$build/.config" "$config" >/dev/null
fi
make_k olddefconfig >/dev/null
# Every option the config asks for must have survived olddefconfig (a dependency it lacks
# drops it silently): a guest without 9p or virtio-net would never answer.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$config" | while IFS= read -r line; do
	grep -qx "$line" "$build/.config" || echo "$line"
done)
[ -z "$missing" ] || echo "scalebench-kernel-build: not in the built config (dependencies?): $missing" >&2
log=$out/build.log
if ! make_k -j"$jobs" bzImage >"$log" 2>&1; then
	echo "scalebench-kernel-build: $sha: the build failed; its last lines ($log):" >&2
	tail -20 "$log" >&2
	rm -f "$out/bzImage"
	exit 1
fi
cp "$build/arch/x86/boot/bzImage" "$out/bzImage.tmp"
mv "$out/bzImage.tmp" "$out/bzImage"
echo "scalebench-kernel-build: $sha: built in $(($(date +%s) - start)) s: $out/bzImage"
