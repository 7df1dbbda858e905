#!/usr/bin/env bash
# The growth policies at scale (issue 55, point 4): on a synthetic Edax book
# of N positions (default 10M, `synth --seed 7`), `deviate`, `enhance` and
# `play` with --max-positions BUDGET (default 1,000) and `fix --link`, set
# beside `fix` of the same book. Edax 4.6 (as the clients build it) is the
# engine, WORKERS workers (default 2), --min-empties 20.
#
# First each command runs once with the engines searching (its journal
# filled; the engines' busy seconds from its JSON summary). Then ROUNDS
# rounds (default 3) run, in turn, fix and each command again into a new
# OUT, every answer taken from its journal: bookminer's own time, what the
# engines' time comes on top of. Prints every run (wall, user, peak RSS),
# the medians, each median over fix's, and the limits the issue sets:
# at most 1.5 x fix plus the engines' time (busy seconds / workers), at a
# peak RSS within the file plus 40 bytes a position. Every OUT is checked
# byte for byte against the first run's.
#
# COMMANDS picks the commands (default "deviate enhance play link"); "learn"
# (issue 62) runs Egaroucid's book deviate at --level 2 on the same book
# converted to .egbk3, set beside fix of that .egbk3.
#
#   scripts/bench-policies.sh [BIN]      # BIN: default target/release/bookminer
#   N=1000000 ROUNDS=5 scripts/bench-policies.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/bookminer}")
clients=$(realpath ../shared/tools/clients)
n=${N:-10000000} budget=${BUDGET:-1000} workers=${WORKERS:-2} rounds=${ROUNDS:-3}
built=$("$clients/build.sh")
edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"
book="$dir/synth-$n-seed7.dat"
[ -f "$book" ] || "$bin" --config /dev/null -q synth --positions "$n" --seed 7 "$book"
commands=(${COMMANDS:-deviate enhance play link})
egbook="$dir/synth-$n-seed7.egbk3"
case " ${commands[*]} " in
  *" learn "*) [ -f "$egbook" ] || "$bin" --config /dev/null -q convert "$book" "$egbook" ;;
esac
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
log="$work/runs.txt"
# run NAME OUT ARGS...: one run of bookminer, its JSON summary kept as
# $work/NAME.json; appends "NAME wall user peak-KiB" to the log.
run() {
  local name=$1 out=$2; shift 2
  rm -f "$out"
  local t
  t=$( { /usr/bin/time -f "%e %U %M" "$bin" --config /dev/null -q "$@" --summary json > "$work/$name.json"; } 2>&1 | tail -n 1)
  echo "$name $t" >> "$log"
  echo "$name: $t (wall s, user s, peak KiB); load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}
grown=(--min-empties 20 --max-positions "$budget" --engine "$edax" --workers "$workers")
policy() { # policy NAME OUT: the command NAME stands for, into OUT.
  case $1 in
    deviate) run "$1$3" "$2" deviate "$book" "$2" "${grown[@]}" --out-dir "$work/o-deviate" ;;
    enhance) run "$1$3" "$2" enhance "$book" "$2" "${grown[@]}" --out-dir "$work/o-enhance" ;;
    play) run "$1$3" "$2" play "$book" "$2" "${grown[@]}" --out-dir "$work/o-play" ;;
    link) run "$1$3" "$2" fix --link "$book" "$2" --engine "$edax" --workers "$workers" --out-dir "$work/o-link" ;;
    learn) run "$1$3" "$2.egbk3" learn "$egbook" "$2.egbk3" --level 2 --max-positions "$budget" --engine "$edax" \
      --workers "$workers" --out-dir "$work/o-learn" ;;
  esac
}
uptime >&2
cat "$book" > /dev/null
for c in "${commands[@]}"; do policy "$c" "$work/$c.dat" -engines; done
for r in $(seq "$rounds"); do
  run fix "$work/fixed.dat" fix "$book" "$work/fixed.dat" --out-dir "$work/o-fix"
  [ -f "$egbook" ] && run fix-egbk3 "$work/fixed.egbk3" fix "$egbook" "$work/fixed.egbk3" --out-dir "$work/o-fix"
  for c in "${commands[@]}"; do
    policy "$c" "$work/$c-again.dat" ""
    [ "$c" = learn ] && suffix=.egbk3 || suffix=
    cmp "$work/$c.dat$suffix" "$work/$c-again.dat$suffix"
  done
done
uptime >&2
size=$(stat -L -c %s "$book")
egsize=$( [ -f "$egbook" ] && stat -L -c %s "$egbook" || echo 0)
python3 - "$log" "$work" "$size" "$egsize" "$n" "$workers" "${commands[@]}" <<'PY'
import json, statistics, sys
log, work, size, egsize, n, workers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
commands = sys.argv[7:]
runs = {}
for line in open(log):
    name, wall, user, kib = line.split()
    runs.setdefault(name, []).append((float(wall), float(user), int(kib)))
med = lambda name, i: statistics.median(r[i] for r in runs[name])
fix = med("fix", 0)
print(f"fix: median {fix:.2f} s wall ({', '.join(f'{r[0]:.2f}' for r in runs['fix'])}), "
      f"{med('fix', 1):.2f} s user, peak {med('fix', 2) * 1024:.0f} B")
for c in commands:
    fix = med("fix-egbk3" if c == "learn" else "fix", 0)
    # learn reads the book as .egbk3: its file is that one.
    file = egsize if c == "learn" else size
    budget = file + 40 * n
    own, first = runs[c], runs[c + "-engines"][0]
    summary = json.load(open(f"{work}/{c}-engines.json"))
    engines = summary.get("engine_seconds", 0.0) / workers
    peak = max(r[2] for r in own + [first]) * 1024
    wall = med(c, 0)
    print(f"{c}: from the journal median {wall:.2f} s wall ({', '.join(f'{r[0]:.2f}' for r in own)}), "
          f"{med(c, 1):.2f} s user, {wall / fix:.2f} x fix: {'within' if wall <= 1.5 * fix else 'OVER'} 1.5 x fix")
    print(f"  with the engines {first[0]:.2f} s wall, engines {engines:.2f} s (busy / {workers}); "
          f"limit 1.5 x fix + engines = {1.5 * fix + engines:.2f} s: {'within' if first[0] <= 1.5 * fix + engines else 'OVER'}")
    print(f"  peak RSS {peak:.0f} B = file + {(peak - file) / n:.1f} B/position; "
          f"limit {budget} B (file + 40 B/position): {'within' if peak <= budget else 'OVER'}")
PY
