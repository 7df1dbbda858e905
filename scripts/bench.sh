#!/usr/bin/env bash
# End-to-end benchmark: writes synthetic books (1M and 10M positions by
# default), mines each with `--mode all` and with the straightforward baseline
# (examples/baseline.rs), checks that both wrote the same files, and prints
# index build rate, walk rate, end-to-end time, peak RSS and the ratio; then
# times `--mode all` writing kifu alone against kifu, JSONL and OBF together
# (target: all three cost at most 25% over kifu alone).
#
#   scripts/bench.sh                 # 1M and 10M positions
#   BENCH_SIZES="100000" scripts/bench.sh
#
# Books and outputs go to target/bench (BENCH_DIR); books are kept between
# runs. bookminer is timed RUNS times (default 3) on a warm page cache and
# the fastest run is reported; the baseline once.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=${BENCH_SIZES:-"1000000 10000000"}
dir=${BENCH_DIR:-target/bench}
runs=${RUNS:-3}
mkdir -p "$dir"

cargo build --release --quiet --bin bookminer --example baseline
bin=target/release/bookminer
baseline=target/release/examples/baseline

# field NAME FILE: the number after NAME in a "key value" file.
field() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# timed OUT -- COMMAND...: runs COMMAND, writing "wall SECONDS" and "rss KB" to OUT.
timed() {
  local out=$1; shift 2
  /usr/bin/time -f "wall %e
rss %M" -o "$out" "$@"
}

results="$dir/results.md"
{
  echo "| positions | file | index build | walk | mode all, end to end | peak RSS | RSS over file | baseline end to end | baseline RSS | speed-up |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$results"

for n in $sizes; do
  book="$dir/synth-$n.dat"
  if [ ! -f "$book" ]; then
    echo "== writing $book"
    "$bin" synth --positions "$n" --seed 1 "$book"
  fi
  size=$(stat -c %s "$book")
  cat "$book" > /dev/null # warm the page cache

  best=""
  for run in $(seq "$runs"); do
    echo "== bookminer, $n positions, run $run"
    timed "$dir/time-$n" -- "$bin" --config /dev/null --book "$book" --mode all \
      --out-dir "$dir/out-$n" --log-file "$dir/log-$n" --log-level info > "$dir/summary-$n" 2> "$dir/stderr-$n"
    wall=$(field wall "$dir/time-$n")
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$wall
      rss=$(field rss "$dir/time-$n")
      load=$(sed -n 's/.*positions loaded in \([0-9.]*\) s.*/\1/p' "$dir/stderr-$n")
      edges=$(awk '/^edges followed/ { print $3 }' "$dir/summary-$n")
      walk=$(awk '/^edges followed/ { print $5 }' "$dir/summary-$n")
    fi
  done

  echo "== baseline, $n positions"
  timed "$dir/time-base-$n" -- "$baseline" "$book" "$dir/base-$n" > /dev/null
  base_wall=$(field wall "$dir/time-base-$n")
  base_rss=$(field rss "$dir/time-base-$n")
  for m in 1 2 3 4; do
    cmp -s "$dir/out-$n/mode$m.txt" "$dir/base-$n/mode$m.txt" \
      || { echo "bookminer and the baseline disagree on mode$m.txt for $book" >&2; exit 1; }
  done

  awk -v n="$n" -v size="$size" -v load="$load" -v edges="$edges" -v walk="$walk" -v wall="$best" \
      -v rss="$rss" -v bwall="$base_wall" -v brss="$base_rss" 'BEGIN {
    printf "| %d | %.0f MB | %.3f s (%.1fM positions/s) | %.3f s (%.2fM edges/s) | %.2f s | %.0f MB | %.1f B/position | %.2f s | %.0f MB | %.1fx |\n",
      n, size / 1e6, load, n / load / 1e6, walk, edges / walk / 1e6, wall, rss / 1024,
      (rss * 1024 - size) / n, bwall, brss / 1024, bwall / wall
  }' >> "$results"
done

formats="$dir/formats.md"
{
  echo "| positions | kifu only | kifu, jsonl, obf | extra |"
  echo "|---|---|---|---|"
} > "$formats"
for n in $sizes; do
  book="$dir/synth-$n.dat"
  cat "$book" > /dev/null
  best_kifu=""; best_all=""
  for run in $(seq "$runs"); do
    for f in kifu kifu,jsonl,obf; do
      echo "== formats $f, $n positions, run $run"
      timed "$dir/time-fmt-$n" -- "$bin" --config /dev/null --book "$book" --mode all --format "$f" \
        --out-dir "$dir/fmt-$n" --log-file "$dir/log-fmt-$n" > /dev/null 2>&1
      wall=$(field wall "$dir/time-fmt-$n")
      if [ "$f" = kifu ]; then
        if [ -z "$best_kifu" ] || awk -v a="$wall" -v b="$best_kifu" 'BEGIN { exit !(a < b) }'; then best_kifu=$wall; fi
      else
        if [ -z "$best_all" ] || awk -v a="$wall" -v b="$best_all" 'BEGIN { exit !(a < b) }'; then best_all=$wall; fi
      fi
    done
  done
  awk -v n="$n" -v k="$best_kifu" -v a="$best_all" \
    'BEGIN { printf "| %d | %.2f s | %.2f s | %+.0f%% |\n", n, k, a, (a / k - 1) * 100 }' >> "$formats"
done

echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cat "$results"
echo
cat "$formats"
