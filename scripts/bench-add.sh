#!/usr/bin/env bash
# add at scale (issue 46): every WTHOR game of ../shared/books/games/wthor/
# added to a new book of level LEVEL (default 2) and depth DEPTH (default
# 20), Edax 4.6 (as the clients build it) the engine with WORKERS workers
# (default 2). Then the same run again into a new OUT, every answer taken
# from the journal and the repository's solver standing in as the engine:
# bookminer's own time and peak RSS (an Edax process's hash table would
# count in the peak otherwise). Then one year (YEAR, default WTH_2021.wtb)
# side by side with Edax's own `book new` + `book add` (one thread), same
# level and depth.
#
# The folder (BENCH_DIR, default target/bench-add) is kept: a run stopped
# and started again takes the journal's answers.
#
#   scripts/bench-add.sh [BIN]       # BIN: default target/release/bookminer
#   GAMES="WTH_2018.wtb WTH_2021.wtb" scripts/bench-add.sh   # fewer years
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/bookminer}")
solver=$(dirname "$bin")/examples/solver
[ -x "$solver" ] || { echo "no $solver: cargo build --release --examples" >&2; exit 2; }
clients=$(realpath ../shared/tools/clients)
wthor=$(realpath ../shared/books/games/wthor)
level=${LEVEL:-2} depth=${DEPTH:-20} workers=${WORKERS:-2} year=${YEAR:-WTH_2021.wtb}
built=$("$clients/build.sh")
# Edax's console clears its hash table before each search: at its default
# size that is most of a level-2 search's time (docs/benchmarks.md), so the
# engine gets a table of 2^HASH entries (default 14).
edax="$built/edax/bin/edax -n 1 -h ${HASH:-14} -eval-file $built/edax/data/eval.dat"
dir=${BENCH_DIR:-target/bench-add}
mkdir -p "$dir"
games=()
for g in ${GAMES:-$(cd "$wthor" && ls WTH_*.wtb)}; do games+=("$wthor/$g"); done

bm() { "$bin" --config /dev/null -q "$@"; }
# timed NAME ARGS...: runs bookminer with a JSON summary into $dir/NAME.json,
# prints its wall time and peak RSS.
timed() {
  local name=$1; shift
  local t
  t=$( { /usr/bin/time -f "%e %M" "$bin" --config /dev/null -q "$@" --summary json > "$dir/$name.json"; } 2>&1 | tail -n 1)
  echo "$name: ${t%% *} s wall, peak RSS $((${t##* } / 1024)) MiB" >&2
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$dir/$1.json" "$2"; }

[ -f "$dir/new.dat" ] || bm new "$dir/new.dat" --level "$level" --depth "$depth" --engine "$edax" --workers 1 \
  --out-dir "$dir/o-new"
echo "${#games[@]} game files, level $level, depth $depth, $workers workers" >&2
timed all add "$dir/new.dat" "${games[@]}" "$dir/all.dat" --force --engine "$edax" --workers "$workers" --out-dir "$dir/o"
timed again add "$dir/new.dat" "${games[@]}" "$dir/again.dat" --force --engine "$solver" --workers 1 --out-dir "$dir/o"
cmp "$dir/all.dat" "$dir/again.dat"
python3 - "$dir/all.json" "$dir/again.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print(f"games {a['games_read']}, positions met {a['positions_met']}, added {a['positions_added']}, "
      f"records written {a['records_written']}")
print(f"first run: {a['searches']} searches by the engines, {a['searches_from_journal']} from the journal, "
      f"engines' time {a['engine_seconds']:.1f} s, elapsed {a['elapsed_seconds']:.1f} s")
own, engines = b['elapsed_seconds'], a['engine_seconds']
share = own / engines if engines else float('nan')
print(f"again, every answer from the journal: {b['searches_from_journal']} answers, bookminer's own time "
      f"{own:.2f} s = {100 * share:.2f}% of the engines' time (goal: under 5% and under 10 s)")
PY

echo "one year side by side: $year" >&2
rm -rf "$dir/year" && mkdir -p "$dir/year"
start=$(date +%s.%N)
bm new "$dir/year/new.dat" --level "$level" --depth "$depth" --engine "$edax" --workers 1 --out-dir "$dir/year/o"
bm add "$dir/year/new.dat" "$wthor/$year" "$dir/year/ours.dat" --engine "$edax" --workers "$workers" --out-dir "$dir/year/o"
ours=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
start=$(date +%s.%N)
"$clients/edax-add.sh" "$level" "$depth" "$dir/year/edax.dat" "$wthor/$year" > "$dir/year/edax.txt"
theirs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
echo "$year: bookminer new + add ($workers workers) $ours s; Edax book new + book add (1 thread) $theirs s" >&2
