#!/bin/sh
# Build nneonneo-player, nneonneo/2048-ai as a player of evotune's player
# protocol (see README.md), from a checkout of that program:
#
#   build.sh PATH_TO_CHECKOUT [OUT]      OUT defaults to ./nneonneo-player
#
# PATH_TO_CHECKOUT holds the program's 2048.cpp, 2048.h and platdefs.h
# (git clone https://github.com/nneonneo/2048-ai). They are compiled together
# with adapter.cpp as one translation unit, from a temporary copy next to a
# config.h written here, so that the transposition table is the
# std::unordered_map of the program's own ./configure build on Linux and macOS
# (the config.h in the repository, for platforms without configure, would
# fall back to std::map: same moves, slower), and the checkout is not touched.
#
# CXX and CXXFLAGS may be overridden. The default flags have no -march: with
# -march=native the compiler may contract multiply-adds into FMA instructions,
# which round differently, so near-ties in the heuristic and then whole games
# come out differently from the program built by its own Makefile.
set -eu

usage() { echo "usage: build.sh PATH_TO_CHECKOUT [OUT]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
src=$1
out=${2:-./nneonneo-player}
here=$(cd "$(dirname "$0")" && pwd)
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:--O3 -Wall -Wextra}

for f in 2048.cpp 2048.h platdefs.h; do
    if [ ! -f "$src/$f" ]; then
        echo "build.sh: $src/$f not found: PATH_TO_CHECKOUT must be a checkout of https://github.com/nneonneo/2048-ai" >&2
        exit 1
    fi
done
# What the adapter uses from 2048.cpp; a checkout without it is a different
# program from the one the adapter was written for.
for name in SCORE_LOST_PENALTY SCORE_MONOTONICITY_POWER SCORE_MONOTONICITY_WEIGHT \
    SCORE_SUM_POWER SCORE_SUM_WEIGHT SCORE_MERGES_WEIGHT SCORE_EMPTY_WEIGHT; do
    if ! grep -q "^static const float $name = " "$src/2048.cpp"; then
        echo "build.sh: $src/2048.cpp has no line 'static const float $name = ...'" >&2
        exit 1
    fi
done
for fn in _score_toplevel_move count_distinct_tiles heur_score_table init_tables; do
    if ! grep -q "$fn" "$src/2048.cpp"; then
        echo "build.sh: $src/2048.cpp has no $fn" >&2
        exit 1
    fi
done

# The version the player reports: the checkout's commit when PATH_TO_CHECKOUT
# is the top of a git work tree (with -dirty if its sources were changed),
# otherwise a checksum of 2048.cpp.
version=
if top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) &&
    [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
    version=$(git -C "$src" rev-parse --short=12 HEAD)
    if [ -n "$(git -C "$src" status --porcelain -- 2048.cpp 2048.h platdefs.h)" ]; then
        version=$version-dirty
    fi
else
    version=cksum-$(cksum < "$src/2048.cpp" | cut -d' ' -f1)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/2048.cpp" "$src/2048.h" "$src/platdefs.h" "$tmp/"
cat > "$tmp/config.h" <<'EOF'
/* Written by evotune's examples/players/nneonneo/build.sh: what the program's
   ./configure finds on Linux and macOS, as far as 2048.cpp and platdefs.h ask. */
#define HAVE_UNORDERED_MAP 1
#define HAVE_DRAND48 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_FCNTL_H 1
EOF
# shellcheck disable=SC2086 # CXXFLAGS is a list of flags
$CXX $CXXFLAGS -I"$tmp" -DNNP_SOURCE="\"$version\"" -o "$out" "$here/adapter.cpp"
echo "built $out (nneonneo/2048-ai $version; $CXX $CXXFLAGS)"
