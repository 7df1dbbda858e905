#!/usr/bin/env bash
# Runs the fuzz targets with libFuzzer on the stable toolchain.
#
#   scripts/fuzz.sh                 every target, 60 s each, one after another
#   scripts/fuzz.sh book 600        one target for ten minutes
#
# Extra libFuzzer flags go in FUZZ_FLAGS, e.g. FUZZ_FLAGS="-jobs=2".
# Crashes land in fuzz/artifacts/<target>/; see docs/fuzzing.md.
set -euo pipefail

targets=(book position config games_wthor games_ggf games_pgn games_sgf games_text games_jsonl)
target=${1:-all}
seconds=${2:-60}

cd "$(dirname "$0")/.."

if [[ $target != all && ! " ${targets[*]} " =~ " $target " ]]; then
    echo "usage: $0 [all|book|position|config|games_wthor|games_ggf|games_pgn|games_sgf|games_text|games_jsonl] [SECONDS]" >&2
    exit 2
fi
if ! [[ $seconds =~ ^[0-9]+$ ]]; then
    echo "$0: SECONDS must be a whole number, not '$seconds'" >&2
    exit 2
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# cargo-fuzz passes -Zsanitizer=address and other unstable flags; this lets the
# stable compiler accept them.
export RUSTC_BOOTSTRAP=1

run() {
    local name=$1
    # The committed seeds stay as they are; libFuzzer adds what it finds to the
    # working corpus (ignored by git), the first directory it is given.
    mkdir -p "fuzz/corpus/$name"
    cp "fuzz/seeds/$name"/* "fuzz/corpus/$name/"
    echo "== fuzzing $name for ${seconds}s"
    # FUZZ_FLAGS is split into words on purpose.
    # shellcheck disable=SC2086
    cargo fuzz run "$name" "fuzz/corpus/$name" "fuzz/seeds/$name" -- \
        -max_total_time="$seconds" -print_final_stats=1 ${FUZZ_FLAGS:-}
}

if [[ $target == all ]]; then
    for name in "${targets[@]}"; do run "$name"; done
else
    run "$target"
fi
