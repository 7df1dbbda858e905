#!/usr/bin/env bash
# The walk's headline figures (docs/benchmarks.md, the walk on every core):
# mining synthetic books with `--mode all`, each stage timed (load, resolve,
# walk with the judge beside it, the files written out), at each of
# THREADS, alternated run by run in the same minutes with Edax 4.6's own
# load of the 10M book (Edax timed from its start to its prompt: it reads
# `q` only once the book is loaded, then quits).
#
#   scripts/bench-walk.sh                          # 10M, 100M, 215M
#   SIZES=10000000 PAIRS=3 scripts/bench-walk.sh   # the 10M book against Edax only
#
# SIZES (default "10000000 100000000 215000000"), SEED (7), PAIRS (3 rounds
# of every run at 10M, 1 above), THREADS ("1 2": the walk on one thread,
# then on two, every other setting the same), DIR (/tmp/walk, where the
# books are written once and kept; the 215M book is 9.5 GB and takes
# about a quarter of an hour to write), BIN (target/release/bookminer),
# EDAX (/tmp/book-clients/edax/bin/edax, which
# ../shared/tools/clients/build.sh builds; no Edax: its column is left out).
# Prints one line per run and, per book and setting, the fastest run.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=${SIZES:-"10000000 100000000 215000000"}
seed=${SEED:-7}
pairs=${PAIRS:-3}
threads=${THREADS:-"1 2"}
dir=${DIR:-/tmp/walk}
bin=$(realpath "${BIN:-target/release/bookminer}")
edax=${EDAX:-/tmp/book-clients/edax/bin/edax}
mkdir -p "$dir"
[ -n "${BIN:-}" ] || cargo build --release --quiet --bin bookminer

# book N: the synthetic book of N positions, written once.
book() {
  local file=$dir/synth-$1-seed$seed.dat
  if [ ! -f "$file" ]; then
    echo "== writing $file" >&2
    "$bin" --config /dev/null -q synth --positions "$1" --seed "$seed" "$file" >&2
  fi
  echo "$file"
}

# warm BOOK: dropped from the page cache, then read by bookminer in large
# pages (scripts/bench.sh, warm).
warm() {
  dd if="$1" iflag=nocache count=0 status=none
  "$bin" --config /dev/null stats "$1" > /dev/null
}

# mine BOOK THREADS: one run; prints "threads T wall W load L resolve R
# walk K write X rss M" (write: the judge's last batches and the files
# written after the walk, until the summary).
mine() {
  local log=$dir/bench-walk.log
  rm -f "$log"
  /usr/bin/time -f "%e %M" -o "$dir/bench-walk.time" "$bin" --config /dev/null --threads "$2" --book "$1" \
    --mode all --out-dir "$dir/bench-walk-out" --log-file "$log" --log-level info --progress-seconds 0 > "$dir/bench-walk.summary"
  local wall rss load resolve walk elapsed
  read -r wall rss < "$dir/bench-walk.time"
  load=$(sed -n 's/.*positions loaded in \([0-9.]*\) s.*/\1/p' "$log")
  resolve=$(sed -n 's/.*moves resolved in \([0-9.]*\) s.*/\1/p' "$log")
  walk=$(awk '/^edges followed/ { print $5 }' "$dir/bench-walk.summary")
  elapsed=$(awk '/^elapsed/ { print $2 }' "$dir/bench-walk.summary")
  awk -v t="$2" -v w="$wall" -v l="$load" -v r="$resolve" -v k="$walk" -v e="$elapsed" -v m="$rss" 'BEGIN {
    printf "threads %s wall %.2f load %.2f resolve %.2f walk %.2f write %.2f rss %.0f\n", t, w, l, r, k, e - r - k, m / 1024 }'
}

# edax_load BOOK: Edax's start, its load of BOOK and its quit, in seconds.
edax_load() {
  local began ended
  began=$(date +%s.%N)
  (cd "$(dirname "$edax")/.." && echo q | "$edax" -book-file "$(realpath "$1")" -n 1 > /dev/null 2>&1)
  ended=$(date +%s.%N)
  awk -v a="$began" -v b="$ended" 'BEGIN { printf "edax load %.2f\n", b - a }'
}

for n in $sizes; do
  file=$(book "$n")
  warm "$file"
  rounds=1
  [ "$n" -le 10000000 ] && rounds=$pairs
  results=$dir/bench-walk-$n.txt
  : > "$results"
  for round in $(seq "$rounds"); do
    if [ "$n" -le 10000000 ] && [ -x "$edax" ]; then
      edax_load "$file" | tee -a "$results"
    fi
    for t in $threads; do
      mine "$file" "$t" | tee -a "$results"
    done
    echo "-- $n positions, round $round" >&2
  done
  echo "== $n positions ($(stat -L -c %s "$file") bytes), fastest of $rounds:"
  awk '$1 == "edax" { if (e == "" || $3 < e) e = $3 }
       $1 == "threads" { if (!($2 in best) || $4 < best[$2]) { best[$2] = $4; line[$2] = $0 } }
       END {
         if (e != "") printf "edax load %.2f s\n", e
         for (t in line) {
           split(line[t], f, " ")
           printf "%s", line[t]
           if (e != "") printf " (%.2f x Edax)", f[4] / e
           printf "\n"
         }
       }' "$results"
done
rm -rf "$dir/bench-walk-out"
