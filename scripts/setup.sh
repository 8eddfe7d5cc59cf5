#!/bin/sh
# Install the Debian packages scalebench needs, only those that are missing, and the npm
# packages of the browser tests (tests/browser: playwright-core, which drives Debian's
# chromium; it downloads no browser of its own) and of html's sites (site-assets: uPlot).
# Runs as root (CI, fresh machines) or through sudo when it is available.
#
#   scripts/setup.sh           what make check needs, and the guest kernel of its QEMU tests
#   scripts/setup.sh --kernel  also what building kernels needs (make check-kernel, bisect
#                              --kernel-tree): linux-source-6.1, the build tools, ccache
set -eu

kernel_build=
case "${1:-}" in
--kernel) kernel_build=1 ;;
'') ;;
*)
	echo "setup: unknown argument '$1'; expected nothing or --kernel" >&2
	exit 2
	;;
esac

PACKAGES="build-essential pkg-config libc6-dev libpfm4-dev libjansson-dev libyaml-dev \
gnuplot-nox r-mathlib libhwloc-dev libcmocka-dev valgrind libelf-dev zlib1g-dev \
clang libclang-rt-14-dev \
openssh-client openssh-server \
libsqlite3-dev \
chromium \
slurm-wlm munge \
qemu-system-x86 busybox-static kmod \
python3 \
asciidoctor man-db"
# Building kernels: the source the kernel lab's bisection imports, and what its build runs.
KERNEL_PACKAGES="linux-source-6.1 flex bison bc libssl-dev libelf-dev cpio ccache xz-utils"
[ -z "$kernel_build" ] || PACKAGES="$PACKAGES $KERNEL_PACKAGES"

cd "$(dirname "$0")/.."

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	SUDO=none
fi

if [ -z "$missing" ]; then
	echo "setup: all packages present"
else
	if [ "$SUDO" = none ]; then
		echo "setup: missing packages:$missing" >&2
		echo "setup: run as root: apt-get install$missing" >&2
		exit 1
	fi
	echo "setup: installing$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# The guest kernel of the QEMU tests (tests/e2e/test_vm.sh): Debian's generic kernel package,
# unpacked, not installed (its scripts would build an initramfs for this machine and touch the
# boot loader), into /var/cache/scalebench/kernel/PACKAGE, its modules indexed by depmod.  Its
# 9p and virtio drivers are modules: `run --kernel` loads them from an initramfs of its own.
cache=/var/cache/scalebench/kernel
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'
}
pkg=$(kernel_pkg)
if [ -z "$pkg" ] && ! ls "$cache"/linux-image-*/.ready >/dev/null 2>&1 && [ "$SUDO" != none ]; then
	$SUDO apt-get update -qq # a machine whose package lists were never fetched
	pkg=$(kernel_pkg)
fi
if [ -z "$pkg" ]; then
	# Offline, with a kernel unpacked before: that one.
	pkg=$(basename "$(ls -d "$cache"/linux-image-*/ 2>/dev/null | head -1)" 2>/dev/null)
fi
if [ -z "$pkg" ]; then
	echo "setup: apt knows no linux-image-amd64: the QEMU tests need Debian's kernel package" >&2
	exit 1
fi
if [ -e "$cache/$pkg/.ready" ]; then
	echo "setup: guest kernel $pkg unpacked in $cache"
else
	echo "setup: unpacking $pkg into $cache/$pkg"
	if [ "$SUDO" = none ]; then
		echo "setup: run as root to unpack $pkg into $cache" >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	chmod 755 "$tmp" # apt-get download fetches as the _apt user
	(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
		(cd "$tmp" && $SUDO apt-get update -qq && apt-get download -q "$pkg")
	$SUDO mkdir -p "$cache"
	$SUDO rm -rf "$cache/$pkg"
	$SUDO dpkg-deb -x "$tmp"/*.deb "$cache/$pkg"
	release=$(basename "$(ls -d "$cache/$pkg"/lib/modules/*)")
	$SUDO /sbin/depmod -b "$cache/$pkg" "$release"
	$SUDO touch "$cache/$pkg/.ready"
	rm -rf "$tmp"
fi

# The npm packages, exactly as locked, when missing or older than the lock: the browser tests'
# (tests/browser: playwright-core) and what html copies into a site (site-assets: uPlot, its
# interactive trend plots; make install puts it in share/scalebench/uplot).
for dir in tests/browser site-assets; do
	lock=$dir/package-lock.json
	stamp=$dir/node_modules/.package-lock.json
	if [ ! -e "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
		if ! command -v npm >/dev/null 2>&1; then
			echo "setup: npm not found: install Node.js 20 or later ($dir needs it)" >&2
			exit 1
		fi
		echo "setup: npm ci --prefix $dir"
		npm ci --prefix "$dir" --no-audit --no-fund
	else
		echo "setup: $dir/node_modules up to date"
	fi
done
