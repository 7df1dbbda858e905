#!/usr/bin/env bash
# End-to-end benchmark. Writes synthetic books with `bookminer synth` (kept in
# BENCH_DIR between runs), mines each with `--mode all` on a warm page cache
# (the book read afresh from disk once first: see `warm`), and prints one
# table row per book: the processor clock of its fastest run, load (map, check, index), resolve (every stored move
# to the record it leads to), walk (and judge, on the second core), end to
# end, peak RSS and RSS over the file size.
#
#   scripts/bench.sh                        # everything below
#   BENCH_SIZES="100000" BIG= EGBK3= scripts/bench.sh
#
# * Edax books of BENCH_SIZES positions (default 1M and 10M), fastest of RUNS
#   (default 3) runs, each compared byte for byte with the straightforward
#   baseline (examples/baseline.rs), timed once.
# * An Edax book of BIG positions (default 100M; synth writes it once, see
#   docs/benchmarks.md for its time and memory), fastest of RUNS_BIG runs (default 3);
#   no baseline (its HashMap would not fit in memory).
# * An Egaroucid .egbk3 book of EGBK3 positions (default 10M), RUNS runs,
#   and its time next to the Edax book of the same size.
# * Writing books: convert both ways, cut --deviation 2, fix, and mining
#   with a window against without, on WRITE_SIZES (default 10M) and BIG.
# * Output formats: on each of BENCH_SIZES, `--mode all` writing kifu alone
#   against kifu, JSONL and OBF together (5.7 times the bytes: the judge's
#   core and the disk set the difference, see docs/benchmarks.md), the fastest of
#   RUNS runs of each, run alternately.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=${BENCH_SIZES-"1000000 10000000"}
big=${BIG-100000000}
egbk3=${EGBK3-10000000}
dir=${BENCH_DIR:-target/bench}
runs=${RUNS:-3}
runs_big=${RUNS_BIG:-3}
mkdir -p "$dir"

cargo build --release --quiet --bin bookminer --example baseline --example clock
bin=target/release/bookminer
baseline=target/release/examples/baseline
# The processor clock, measured before each run (examples/clock.rs): on a
# virtual machine it moves between runs, and the timings with it.
clock=target/release/examples/clock

# field NAME FILE: the number after NAME in a "key value" file.
field() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# faster A B: true if time A beats B, or B is not set yet.
faster() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b == "" || a < b) }'; }

# timed OUT -- COMMAND...: runs COMMAND, writing "wall SECONDS" and "rss KB" to OUT.
timed() {
  local out=$1; shift 2
  /usr/bin/time -f "wall %e
rss %M" -o "$out" "$@"
}

# book_file FORMAT N: the synthetic book of N positions in FORMAT, written once.
book_file() {
  local format=$1 n=$2 ext=dat
  [ "$format" = egbk3 ] && ext=egbk3
  local book="$dir/synth-$n.$ext"
  if [ ! -f "$book" ]; then
    echo "== writing $book" >&2
    "$bin" synth --book-format "$format" --positions "$n" --seed 1 "$book" >&2
  fi
  echo "$book"
}

# warm BOOK: reads the book afresh into the page cache, as after a reboot:
# dropped from the cache (dd's nocache), then read by bookminer, whose map
# asks for 2 MiB pages (src/os.rs). Read with `cat`, or cached as
# synth wrote it, the book would sit in 4 KiB pages, and every record read of
# the walk would also miss the TLB.
warm() {
  dd if="$1" iflag=nocache count=0 status=none
  "$bin" stats "$1" > /dev/null
}

# mine_best TAG BOOK RUNS: mines BOOK (mode all) RUNS times into $dir/out-TAG
# and sets best, ghz, rss, load, resolve, edges, walk from the fastest run.
mine_best() {
  local tag=$1 book=$2 n_runs=$3
  warm "$book"
  best=""
  printf '* %s, every run end to end:' "$tag" >> "$every"
  for run in $(seq "$n_runs"); do
    echo "== bookminer, $tag, run $run" >&2
    local run_ghz
    run_ghz=$("$clock")
    timed "$dir/time-$tag" -- "$bin" --config /dev/null --book "$book" --mode all \
      --out-dir "$dir/out-$tag" --log-file "$dir/log-$tag" --log-level info > "$dir/summary-$tag" 2> "$dir/stderr-$tag"
    local wall
    wall=$(field wall "$dir/time-$tag")
    printf ' %s s (%s GHz)' "$wall" "$run_ghz" >> "$every"
    if faster "$wall" "$best"; then
      best=$wall
      ghz=$run_ghz
      rss=$(field rss "$dir/time-$tag")
      # The log file's info lines (standard error shows only warnings and errors).
      load=$(sed -n 's/.*positions loaded in \([0-9.]*\) s.*/\1/p' "$dir/log-$tag")
      resolve=$(sed -n 's/.*moves resolved in \([0-9.]*\) s.*/\1/p' "$dir/log-$tag")
      edges=$(awk '/^edges followed/ { print $3 }' "$dir/summary-$tag")
      walk=$(awk '/^edges followed/ { print $5 }' "$dir/summary-$tag")
    fi
  done
  echo >> "$every"
}

# row LABEL N BOOK [BASELINE_WALL BASELINE_RSS]: one table row from the last mine_best.
row() {
  local size
  size=$(stat -c %s "$3")
  awk -v label="$1" -v n="$2" -v size="$size" -v load="$load" -v resolve="$resolve" -v edges="$edges" -v walk="$walk" -v wall="$best" \
      -v rss="$rss" -v ghz="$ghz" -v bwall="${4:-}" -v brss="${5:-}" 'BEGIN {
    base = bwall == "" ? "| — | — | — |" : sprintf("| %.2f s | %.0f MB | %.1fx |", bwall, brss / 1024, bwall / wall)
    printf "| %s | %d | %.0f MB | %s GHz | %.2f s (%.1fM positions/s) | %.2f s | %.2f s (%.2fM edges/s) | %.2f s | %.0f MB | %.1f B/position %s\n",
      label, n, size / 1e6, ghz, load, n / load / 1e6, resolve, walk, edges / walk / 1e6, wall, rss / 1024,
      (rss * 1024 - size) / n, base
  }' >> "$results"
}

declare -A edax_wall
results="$dir/results.md"
every="$dir/every-run.md"
: > "$every"
{
  echo "| book | positions | file | clock | load | resolve | walk | mode all, end to end | peak RSS | RSS over file | baseline end to end | baseline RSS | speed-up |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$results"

for n in $sizes; do
  book=$(book_file edax "$n")
  mine_best "edax-$n" "$book" "$runs"
  echo "== baseline, $n positions" >&2
  timed "$dir/time-base-$n" -- "$baseline" "$book" "$dir/base-$n" > /dev/null
  for m in 1 2 3 4; do
    cmp -s "$dir/out-edax-$n/mode$m.txt" "$dir/base-$n/mode$m.txt" \
      || { echo "bookminer and the baseline disagree on mode$m.txt for $book" >&2; exit 1; }
  done
  row "Edax" "$n" "$book" "$(field wall "$dir/time-base-$n")" "$(field rss "$dir/time-base-$n")"
  edax_wall[$n]=$best
done

if [ -n "$big" ]; then
  book=$(book_file edax "$big")
  mine_best "edax-$big" "$book" "$runs_big"
  row "Edax" "$big" "$book"
fi

if [ -n "$egbk3" ]; then
  book=$(book_file egbk3 "$egbk3")
  mine_best "egbk3-$egbk3" "$book" "$runs"
  row "Egaroucid" "$egbk3" "$book"
  if [ -n "${edax_wall[$egbk3]:-}" ]; then
    awk -v e="$best" -v d="${edax_wall[$egbk3]}" -v n="$egbk3" 'BEGIN {
      printf "\n.egbk3 / Edax, %d positions, mode all end to end: %.2f s / %.2f s = %.2fx\n", n, e, d, e / d }' >> "$results"
  fi
fi

formats="$dir/formats.md"
{
  echo "| positions | kifu only | kifu, jsonl, obf | extra |"
  echo "|---|---|---|---|"
} > "$formats"
for n in $sizes; do
  book=$(book_file edax "$n")
  warm "$book"
  best_kifu=""; best_all=""
  for run in $(seq "$runs"); do
    for f in kifu kifu,jsonl,obf; do
      echo "== formats $f, $n positions, run $run" >&2
      timed "$dir/time-fmt-$n" -- "$bin" --config /dev/null --book "$book" --mode all --format "$f" \
        --out-dir "$dir/fmt-$n" --log-file "$dir/log-fmt-$n" > /dev/null 2>&1
      wall=$(field wall "$dir/time-fmt-$n")
      if [ "$f" = kifu ]; then
        if faster "$wall" "$best_kifu"; then best_kifu=$wall; fi
      else
        if faster "$wall" "$best_all"; then best_all=$wall; fi
      fi
    done
  done
  awk -v n="$n" -v k="$best_kifu" -v a="$best_all" \
    'BEGIN { printf "| %d | %.2f s | %.2f s | %+.0f%% |\n", n, k, a, (a / k - 1) * 100 }' >> "$formats"
done

# Writing books: convert both ways, cut, fix, and mining under a window
# against mining without one, on each book of WRITE_SIZES (default 10M) and
# the BIG one; fastest of RUNS, peak RSS against the input file.
writes="$dir/writes.md"
{
  echo "| command | positions | input file | clock | end to end | peak RSS | RSS over input |"
  echo "|---|---|---|---|---|---|---|"
} > "$writes"
# write_best LABEL N INPUT OUT COMMAND...: the fastest of RUNS runs of
# COMMAND, which writes the book OUT ("" for none; removed before each run,
# since a command never replaces a book it did not write unasked); each
# command takes only its own options: --out-dir goes to those that write
# into it, fix and mining.
write_best() {
  local label=$1 n=$2 input=$3 out=$4; shift 4
  local best_w="" best_r="" best_g="" run_ghz w
  warm "$input"
  for run in $(seq "$runs"); do
    echo "== $label, $n positions, run $run" >&2
    [ -z "$out" ] || rm -f "$out"
    run_ghz=$("$clock")
    timed "$dir/time-write" -- "$@" --config /dev/null --log-file "$dir/log-write" > /dev/null
    w=$(field wall "$dir/time-write")
    if faster "$w" "$best_w"; then best_w=$w; best_r=$(field rss "$dir/time-write"); best_g=$run_ghz; fi
  done
  awk -v label="$label" -v n="$n" -v size="$(stat -c %s "$input")" -v wall="$best_w" -v rss="$best_r" -v ghz="$best_g" 'BEGIN {
    printf "| %s | %d | %.0f MB | %s GHz | %.2f s | %.0f MB | %.1f B/position |\n", label, n, size / 1e6, ghz, wall, rss / 1024, (rss * 1024 - size) / n }' >> "$writes"
}
for n in ${WRITE_SIZES-10000000} $big; do
  book=$(book_file edax "$n")
  write_best "convert Edax to .egbk3" "$n" "$book" "$dir/conv-$n.egbk3" \
    "$bin" convert "$book" "$dir/conv-$n.egbk3"
  write_best "convert .egbk3 to Edax" "$n" "$dir/conv-$n.egbk3" "$dir/conv-$n.dat" \
    "$bin" convert "$dir/conv-$n.egbk3" "$dir/conv-$n.dat"
  write_best "cut --deviation 2" "$n" "$book" "$dir/cut-$n.dat" "$bin" cut "$book" "$dir/cut-$n.dat" --deviation 2
  if "$bin" fix --help > /dev/null 2>&1; then
    write_best "fix" "$n" "$book" "$dir/fix-$n.dat" "$bin" fix "$book" "$dir/fix-$n.dat" --out-dir "$dir/write-out"
  fi
  write_best "mine, mode all" "$n" "$book" "" "$bin" --book "$book" --mode all --out-dir "$dir/write-out"
  write_best "mine, mode all, --deviation 2" "$n" "$book" "" "$bin" --book "$book" --mode all --deviation 2 \
    --out-dir "$dir/write-out"
  rm -f "$dir/conv-$n.egbk3" "$dir/conv-$n.dat" "$dir/cut-$n.dat" "$dir/fix-$n.dat"
done

echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cat "$results"
echo
cat "$every"
echo
cat "$formats"
echo
cat "$writes"
