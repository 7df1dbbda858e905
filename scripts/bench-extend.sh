#!/usr/bin/env bash
# extend against Edax's own `book extend`, in the same minutes: the book of
# ../shared/books/extend from its README's start, Edax 4.6 (as the clients
# build it) as bookminer's engine with WORKERS engines, against Edax's
# `book extend` with WORKERS threads; the two run in turn RUNS times.
# Prints each run's wall-clock and user time, the ratio of the medians, and
# checks that both grew the same boards (bookdiff.py, after Edax's negamax).
#
#   scripts/bench-extend.sh [BIN]      # BIN: default target/release/bookminer
#   RUNS=5 WORKERS=2 scripts/bench-extend.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/bookminer}")
clients=$(realpath ../shared/tools/clients)
book=$(realpath ../shared/books/extend/endgames-extend.dat)
line=d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2
runs=${RUNS:-3} workers=${WORKERS:-2}
built=$("$clients/build.sh")
edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ours=() theirs=()
for i in $(seq "$runs"); do
  rm -rf "$work/o" "$work/ours.dat"
  t=$( { /usr/bin/time -f "%e %U" "$bin" --config /dev/null extend "$book" "$work/ours.dat" --start "$line" \
        --engine "$edax" --workers "$workers" --out-dir "$work/o" --log-file "$work/o/log" -q; } 2>&1 | tail -n 1)
  ours+=("${t%% *}"); echo "bookminer extend: ${t%% *} s wall, ${t##* } s user"
  t=$( { /usr/bin/time -f "%e %U" "$clients/edax-extend.sh" "$book" "$line" "$work/edax.dat" "$workers" > /dev/null; } 2>&1 | tail -n 1)
  theirs+=("${t%% *}"); echo "Edax book extend:  ${t%% *} s wall, ${t##* } s user"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m1=$(median "${ours[@]}") m2=$(median "${theirs[@]}")
python3 -c "print(f'medians: bookminer {$m1} s, Edax {$m2} s, ratio {$m1/$m2:.2f}')"
"$clients/edax-check.sh" "$work/edax.dat" "$work/edax-neg.dat" > /dev/null
python3 "$clients/bookdiff.py" edax "$work/edax-neg.dat" "$work/ours.dat" --fields value,lower,upper,level
