#!/usr/bin/env bash
# Fulcrum host tool installer.
#
# Idempotent: checks each required tool and installs only the Debian
# packages that are missing. Prints "setup: all tools present" and exits
# quickly when there is nothing to do (Make runs this on every test/run).
# Either way it ends with QEMU creating Fulcrum's machine once
# (tools/qemu.py --smoke, well under a second), so that a missing file,
# a boot ROM say, shows up here named with its package rather than as
# failed boots later.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"


# "command-to-check:debian-package" pairs. Packages checked via dpkg are
# listed separately because they provide no command of their own.
CMD_PKGS=(
    "aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu"
    "aarch64-linux-gnu-ld:binutils-aarch64-linux-gnu"
    "gdb-multiarch:gdb-multiarch"
    "python3:python3"
    "make:make"
    "gcc:gcc"
    "spin:spin"
    "mke2fs:e2fsprogs"
)
# QEMU by package too: the binary's name belongs to tools/qemu.py.
DPKG_PKGS=(
    "picolibc-aarch64-linux-gnu"
    "qemu-system-arm"
)
# Packages only some targets need, by the target named as an argument
# (`setup.sh plots`: `make plots` and `make bench`, never `make test`).
# `setup.sh linux OUTDIR`: what make bench-linux needs besides the base
# tools, Debian's arm64 kernel and busybox-static unpacked into OUTDIR
# (scripts/setup_linux.sh, after the base tools).
LINUX_OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        plots) DPKG_PKGS+=("python3-matplotlib") ;;
        linux) LINUX_OUT="${2:?usage: setup.sh linux OUTDIR}"; shift ;;
        *) echo "setup: error: unknown target $1 (known: plots, linux OUTDIR)" >&2
           exit 1 ;;
    esac
    shift
done

# Set the global array `missing` to the packages whose command or dpkg
# entry is absent.
find_missing() {
    missing=()
    local pair cmd pkg
    for pair in "${CMD_PKGS[@]}"; do
        cmd="${pair%%:*}"
        pkg="${pair#*:}"
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
    done
    for pkg in "${DPKG_PKGS[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
}

# Create the machine once with the shared command line. On failure
# tools/qemu.py has printed the failed command, QEMU's stderr and, when
# that is the cause, the missing package and how to install it.
smoke_check() {
    if ! python3 "$ROOT/tools/qemu.py" --smoke; then
        echo "setup: error: QEMU cannot create Fulcrum's machine (see above)" >&2
        exit 1
    fi
}

find_missing

if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup: all tools present"
    smoke_check
    [ -z "$LINUX_OUT" ] || exec "$ROOT/scripts/setup_linux.sh" "$LINUX_OUT"
    exit 0
fi

echo "setup: installing missing packages: ${missing[*]}"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: error: apt-get not found; install manually: ${missing[*]}" >&2
    exit 1
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "setup: error: not root and sudo not available; install manually: ${missing[*]}" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! ${SUDO[@]+"${SUDO[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get update; then
    echo "setup: error: apt-get update failed" >&2
    exit 1
fi
if ! ${SUDO[@]+"${SUDO[@]}"} env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"; then
    echo "setup: error: apt-get install failed for: ${missing[*]}" >&2
    exit 1
fi

hash -r
installed=("${missing[@]}")
find_missing
if [ "${#missing[@]}" -ne 0 ]; then
    echo "setup: error: still missing after install: ${missing[*]}" >&2
    exit 1
fi
echo "setup: installed ${installed[*]}"
smoke_check
[ -z "$LINUX_OUT" ] || exec "$ROOT/scripts/setup_linux.sh" "$LINUX_OUT"
