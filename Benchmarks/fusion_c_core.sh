#!/usr/bin/env bash
# Times x-io's Fusion C library directly (no Python), on the same CSV as Benchmarks/fusion_peer.py.
#
# Usage: Benchmarks/fusion_c_core.sh DATA.csv [SKIP_SECONDS]
#
# Fetches the imufusion sdist (the installed imufusion version, else 1.3.3) from PyPI into a temporary
# directory, compiles its Fusion/*.c with Benchmarks/fusion_c_harness.c, runs the harness, and removes the
# temporary directory. Nothing from the sdist is copied into the repository. Prints only the RESULT line
# (and errors).
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 DATA.csv [SKIP_SECONDS]" >&2
    exit 2
fi
data=$1
skip=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
[[ -r $data ]] || { echo "$0: cannot read $data" >&2; exit 1; }

version=$(python3 -c 'import importlib.metadata as m; print(m.version("imufusion"))' 2>/dev/null || echo 1.3.3)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --no-binary imufusion, not :all: -- pip prepares the sdist's metadata, and :all: would make it build the
# sdist's build requirements (setuptools, numpy) from source too, which takes many minutes.
if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip download --quiet --disable-pip-version-check \
        --no-deps --no-binary imufusion "imufusion==$version" -d "$tmp" >"$tmp/pip.log" 2>&1; then
    cat "$tmp/pip.log" >&2
    echo "$0: could not download the imufusion $version sdist" >&2
    exit 1
fi
tar -xzf "$tmp"/imufusion-*.tar.gz -C "$tmp"

header=$(find "$tmp" -path '*/Fusion/Fusion.h' -print -quit)
[[ -n $header ]] || { echo "$0: Fusion/Fusion.h not found in the imufusion sdist" >&2; exit 1; }
src=$(dirname "$header")

# FUSION_USE_NORMAL_SQRT matches how imufusion's setup.py builds the Python extension (the plain C library
# defaults to a fast inverse square root), so the attitude figures should match fusion_peer.py's.
cc -O2 -DFUSION_USE_NORMAL_SQRT -I"$src" "$src"/*.c "$here/fusion_c_harness.c" -lm -o "$tmp/fusion_c_harness"

"$tmp/fusion_c_harness" "$data" "$skip"
