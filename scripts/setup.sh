#!/bin/sh
# Install the Debian packages scalebench needs, only those that are missing.
# Runs as root (CI, fresh machines) or through sudo when it is available.
set -eu

PACKAGES="build-essential pkg-config libc6-dev libpfm4-dev libjansson-dev libyaml-dev \
gnuplot-nox r-mathlib libhwloc-dev libcmocka-dev valgrind libelf-dev zlib1g-dev \
clang libclang-rt-14-dev \
openssh-client openssh-server \
libsqlite3-dev"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "setup: all packages present"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "setup: missing packages:$missing" >&2
	echo "setup: run as root: apt-get install$missing" >&2
	exit 1
fi

echo "setup: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
