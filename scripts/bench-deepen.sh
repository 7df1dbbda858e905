#!/usr/bin/env bash
# deepen at scale (issue 48): a synthetic Edax book of N positions
# (default 10M), deepened with a budget of BUDGET records (default 10,000)
# at Edax level LEVEL (default 4), Edax 4.6 (as the clients build it) the
# engine with WORKERS workers. The first run fills the journal; the second,
# into a new OUT with every answer taken from that journal, is bookminer's
# own time, set beside `fix` of the same book and the time to read the
# journal. Prints each time and peak RSS, and the bounds the issue sets:
# deepen's own time at most 1.5 x fix plus the journal's reading, its peak
# RSS at most the book file plus 40 bytes a position. Every record is a
# candidate (--min-empties 0): a synthetic header says 60 empty squares.
#
#   scripts/bench-deepen.sh [BIN]      # BIN: default target/release/bookminer
#   N=1000000 BUDGET=2000 scripts/bench-deepen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/bookminer}")
clients=$(realpath ../shared/tools/clients)
n=${N:-10000000} budget=${BUDGET:-10000} level=${LEVEL:-4} workers=${WORKERS:-2}
built=$("$clients/build.sh")
edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"
book="$dir/synth-$n.dat"
[ -f "$book" ] || "$bin" --config /dev/null -q synth --positions "$n" --seed 1 "$book"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
bm() { "$bin" --config /dev/null -q "$@"; }
# timed NAME ARGS...: runs bookminer, prints and keeps "seconds peak-KiB".
timed() {
  local name=$1; shift
  local t
  t=$( { /usr/bin/time -f "%e %M" "$bin" --config /dev/null -q "$@" > /dev/null; } 2>&1 | tail -n 1)
  echo "$name: ${t%% *} s, peak RSS $((${t##* } / 1024)) MiB" >&2
  echo "$t"
}
cat "$book" > /dev/null
fix=$(timed "fix" fix "$book" "$work/fixed.dat" --out-dir "$work/of")
deepen() { timed "$1" deepen "$book" "$work/$2" --level "$level" --max-positions "$budget" \
  --min-empties 0 --engine "$edax" --workers "$workers" --out-dir "$work/o"; }
deepen "deepen, the engines searching" first.dat > /dev/null
again=$(deepen "deepen, every answer from the journal" again.dat)
cmp "$work/first.dat" "$work/again.dat"
answers=$(wc -l < "$work/o/extend.jsonl")
journal=$( { /usr/bin/time -f "%e" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" \
  "$work/o/extend.jsonl"; } 2>&1 | tail -n 1)
echo "journal: $answers answers, read (parsed whole) in $journal s" >&2
size=$(stat -L -c %s "$book")
python3 - "${fix%% *}" "${again%% *}" "${again##* }" "$journal" "$size" "$n" <<'PY'
import sys
fix, deep, rss_kib, journal, size, n = map(float, sys.argv[1:])
bound_t = 1.5 * fix + journal
bound_m = size + 40 * n
print(f"deepen's own time {deep:.2f} s; bound 1.5 x fix ({fix:.2f} s) + journal ({journal:.2f} s) = {bound_t:.2f} s: "
      f"{'within' if deep <= bound_t else 'OVER'}")
print(f"peak RSS {rss_kib / 1024:.0f} MiB; bound file ({size / 2**20:.0f} MiB) + 40 B x {n:.0f} = "
      f"{bound_m / 2**20:.0f} MiB: {'within' if rss_kib * 1024 <= bound_m else 'OVER'}")
PY
