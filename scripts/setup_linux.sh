#!/usr/bin/env bash
# What `make bench-linux` needs (scripts/setup.sh linux): Debian's cross
# glibc (to build the benchmark programs a second time, as static Linux
# programs), and Debian's arm64 kernel and busybox-static packages,
# fetched with `apt-get download` (the arm64 architecture is added to
# dpkg for that) and unpacked into OUT/root. Nothing is built from source.
# A package that cannot be fetched is named, and the script stops.
set -euo pipefail

OUT="${1:?usage: setup_linux.sh OUTDIR}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi

if ! dpkg -s libc6-dev-arm64-cross >/dev/null 2>&1; then
    echo "setup: installing libc6-dev-arm64-cross"
    ${SUDO[@]+"${SUDO[@]}"} apt-get install -y --no-install-recommends libc6-dev-arm64-cross
fi
if [ -d "$OUT/root/boot" ] && [ -x "$OUT/root/bin/busybox" ]; then
    echo "setup: Linux packages present in $OUT"
    exit 0
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "setup: adding the arm64 architecture to dpkg (for apt-get download)"
    ${SUDO[@]+"${SUDO[@]}"} dpkg --add-architecture arm64
    ${SUDO[@]+"${SUDO[@]}"} apt-get update -q
fi
kernel="$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\):arm64$/\1/p' | head -1)"
if [ -z "$kernel" ]; then
    ${SUDO[@]+"${SUDO[@]}"} apt-get update -q
    kernel="$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\):arm64$/\1/p' | head -1)"
fi
[ -n "$kernel" ] || { echo "bench-linux: cannot find the package linux-image-arm64:arm64" >&2; exit 1; }
mkdir -p "$OUT/root"
cd "$OUT"
for pkg in "$kernel:arm64" "busybox-static:arm64"; do
    if ! apt-get download "$pkg" >/dev/null 2>&1; then
        echo "bench-linux: cannot fetch the package $pkg" >&2
        exit 1
    fi
done
for deb in ./*.deb; do
    dpkg-deb -x "$deb" root
done
echo "setup: unpacked $kernel and busybox-static into $OUT/root"
