#!/usr/bin/env bash
# Is one bookminer binary as fast as another? Both run in turn, in the same
# minutes, so that a busy or throttled machine weighs on both alike: each
# round runs every command once with OLD_BIN, then once with NEW_BIN.
#
#   scripts/alternate.sh OLD_BIN NEW_BIN
#   SIZE=10000000 RUNS=5 FORMAT=edax scripts/alternate.sh OLD NEW
#
# The book: a synthetic book of SIZE positions (default 10M) in FORMAT
# (edax or egbk3), written once into BENCH_DIR (default target/bench) and
# read once before the first run. The commands: mine --mode all, convert
# to the other format, cut --deviation 2, fix. Prints, per command and
# binary, the median wall-clock and user CPU seconds and peak RSS of RUNS
# rounds (default 5), and every run's figures above them.
#
# GROWTH=N adds extend and grow of N positions (--max-positions N, every
# record a candidate: --min-empties 0), Edax 4.6 as the clients build it
# the engine (../shared beside the repository): a first run of OLD_BIN fills
# a journal for each, which every round then takes its answers from, so
# that the times are bookminer's own, not the engine's.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
size=${SIZE:-10000000}
runs=${RUNS:-5}
format=${FORMAT:-edax}
dir=$(realpath -m "${BENCH_DIR:-target/bench}")
mkdir -p "$dir"
ext=dat other=egbk3
[ "$format" = egbk3 ] && ext=egbk3 other=dat
book=$dir/synth-$size-seed1.$ext
[ -f "$book" ] || "$old" --config /dev/null -q synth --positions "$size" --seed 1 --book-format "$format" "$book"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$book" > /dev/null
commands="mine convert cut fix"
growth=${GROWTH:-}
if [ -n "$growth" ]; then
  built=$(../shared/tools/clients/build.sh)
  edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  for command in extend grow; do
    journal=$dir/journal-$command-$size-$growth
    if [ ! -s "$journal/extend.jsonl" ]; then
      echo "$command: filling the journal $journal with Edax (once)" >&2
      "$old" --config /dev/null -q "$command" "$book" "$work/filling.$ext" --max-positions "$growth" \
        --min-empties 0 --engine "$edax" --workers 2 --out-dir "$journal" > /dev/null
      rm -f "$work/filling.$ext"
    fi
  done
  commands="$commands extend grow"
fi

for round in $(seq "$runs"); do
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    for command in $commands; do
      rm -rf "${work:?}"/*
      case $command in
        mine) args=(mine "$book" --mode all --out-dir "$work/o") ;;
        convert) args=(convert "$book" "$work/c.$other") ;;
        cut) args=(cut "$book" "$work/c.$ext" --deviation 2) ;;
        fix) args=(fix "$book" "$work/f.$ext" --out-dir "$work/o") ;;
        extend | grow) args=("$command" "$book" "$work/g.$ext" --max-positions "$growth" --min-empties 0
          --engine "$edax" --workers 2 --out-dir "$dir/journal-$command-$size-$growth") ;;
      esac
      /usr/bin/time -f "%e %U %M" -o "$work/time" "$bin" --config /dev/null -q "${args[@]}" > /dev/null
      echo "$command $side $(cat "$work/time")"
    done
  done
done | tee "$dir/alternate.log"

echo
echo "medians of $runs rounds, $(basename "$book"):"
echo "command  binary  wall s  user s  peak RSS KB"
sort -k1,1 -k2,2r -k3,3n "$dir/alternate.log" | awk -v runs="$runs" -v order="$commands" '
  { key = $1 " " $2; n[key]++; wall[key, n[key]] = $3; user[key, n[key]] = $4; rss[key, n[key]] = $5 }
  function median(a, key, count,   i, v, t, j) {
    for (i = 1; i <= count; i++) v[i] = a[key, i]
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((count + 1) / 2)]
  }
  END {
    total = split(order, commands, " ")
    for (c = 1; c <= total; c++) for (s = 1; s <= 2; s++) {
      key = commands[c] " " (s == 1 ? "old" : "new")
      printf "%-8s %-7s %6.2f  %6.2f  %11d\n", commands[c], (s == 1 ? "old" : "new"), median(wall, key, n[key]), median(user, key, n[key]), median(rss, key, n[key])
    }
  }'
