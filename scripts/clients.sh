#!/usr/bin/env bash
# What the engines themselves make of the books bookminer writes: every book
# in ../shared/books converted to both formats, cut under a few windows and
# fixed, and a synthetic book, each given to the real clients that
# ../shared/tools/clients builds (Edax 4.6, Egaroucid's own loader):
#   * an Edax book written must load whole in Edax, with nothing for its
#     `book fix` to repair and no warning (edax-check.sh);
#   * an .egbk3 book written must be held by Egaroucid exactly as written
#     (egaroucid-check.sh);
#   * a fixed Edax book, and an unperturbed synthetic one, must come back
#     unchanged from Edax's own `book negamax` (bookdiff.py, every field);
#   * an older Egaroucid book converted must hold, as Egaroucid loads it,
#     the boards, values and levels Egaroucid loads from its source;
#   * `extend` with Edax as the engine must grow ../shared/books/extend to the
#     boards Edax's own `book extend` grows, with the values Edax's own
#     negamax then gives them, Edax must load the book written with nothing
#     to repair and its own `book extend` of it add nothing; the same book as
#     .egbk3 must grow to the same boards and values (but the positions an
#     Egaroucid book does not store) and load in Egaroucid as written;
#   * learn, recalculate and the accuracy grades as Egaroucid's own
#     book_deviate, book_recalculate_leaf and Book_accuracy (egbook) write
#     and grade them (docs/egaroucid.md);
#   * the same `extend` with Egaroucid for Console as the engine
#     (../shared/tools/clients/egaroucid-console builds it, once, under
#     /tmp/book-clients/egaroucid-console), and with a fleet of Egaroucid
#     and Edax, must grow the same boards with the same values; a run of it
#     killed (SIGKILL) and run again must write the very book of a run never
#     killed, search nothing twice and leave no Egaroucid process;
#   * `deepen` of ../shared/books/extend, its levels set to 2, to level 8 with
#     Edax, and with Egaroucid, as the engine must raise every record to it,
#     add no error Edax's own `book correct` finds, load in Edax with nothing
#     to repair and come back with the same values from Edax's negamax;
#   * `merge` of each book with itself (--link: its stale leaves left with
#     no score, or searched by Edax) and of the extend book with Edax's own
#     extension of it must load in Edax with nothing to repair and come back
#     unchanged from Edax's negamax, or be held by Egaroucid as written;
#   * `check` of the games of ../shared/books/games (WTHOR years, the GGF
#     file, pairs of lines in a text file) against Edax books must count
#     the missing, good and bad moves Edax's own `book check` counts, and of
#     an .egbk3 book the missing and bad Edax counts of its conversion;
#   * `new` and `add` with Edax as the engine must make of games the book
#     Edax's own `book new` and `book add`, then its `book negamax`, make
#     (an .egbk3 book too, compared with Edax's converted):
#     the same boards, links, values, bounds and levels (the recorded books
#     of ../shared/books/games, and a live run of Edax's), loading in Edax
#     with nothing to repair.
#   * `serve` keeps answering whatever one client does: beside a client
#     that pipelines 2,000 requests and reads none, a 20 KiB header (431),
#     another site's Host (403), its book rewritten under it (read again);
#   * `inspect --svg` and the explorer's page (`serve`, as headless
#     Chromium renders it; Debian's chromium installed if missing) hold the
#     moves and scores `inspect` prints at F5F6E6F4, and the page, played in
#     Chromium (a square clicked, back, forward, a kifu pasted), those it
#     prints at each line reached.
#
#   scripts/clients.sh [BIN]          # BIN: default target/release/bookminer
#   SYNTH=100000 scripts/clients.sh   # size of the synthetic book (0: none)
#   JOBS=6 scripts/clients.sh         # checks run at once
#   ONLY=Egaroucid scripts/clients.sh # only the checks whose label has this
#   VERBOSE=1 scripts/clients.sh      # what each check passed said, too
#
# edax-check.sh waits a few seconds for each command it gives Edax, so a
# check spends most of its time asleep: JOBS checks run at once, each in a
# folder of its own, and their results are printed in the order they were
# started. Needs ../shared beside the repository (CI has it); prints one
# line per failed check and ends with "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=$(realpath "${1:-target/release/bookminer}")
shared=$(realpath ../shared)
clients=$shared/tools/clients
synth_size=${SYNTH:-100000}
jobs=${JOBS:-6}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null; wait; rm -rf "$work"' EXIT
n_checks=0

# The clients are built once, before any check runs (two first builds at
# once would race in their shared folder).
built=$("$clients/build.sh") || { echo "cannot build the clients"; exit 2; }

# check LABEL COMMAND...: runs COMMAND in the background, in a folder of its
# own ($d), once fewer than JOBS checks are running.
check() {
  local label=$1; shift
  case $label in *"${ONLY:-}"*) ;; *) return 0 ;; esac
  n_checks=$((n_checks + 1))
  local d=$work/check-$n_checks
  mkdir -p "$d"
  printf '%s\n' "$label" > "$d/label"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  ( cd "$d" && d=$d && "$@" > "$d/out" 2>&1; echo $? > "$d/status" ) &
}

# bm ARGS...: bookminer with no config file, logging nowhere, its summary kept.
bm() { SOURCE_DATE_EPOCH=0 "$bin" "$@" --config /dev/null --log-file "$d/log" > "$d/bm.out"; }

# edax_check BOOK [NEGAMAXED]: ../shared's edax-check.sh, given up to two
# more tries when Edax ended having read none of its commands. That script
# gives Edax its commands after fixed sleeps, and Edax's `q` empties the
# queue of commands not yet read (ui_read_input in Edax's ui.c), so on a
# loaded machine (JOBS checks at once on 2 cores, engines searching) an Edax
# still starting when `q` arrives reads nothing: "Edax loaded none", or no
# negamaxed book. Measured: 3 such ends in 8 runs at a load of 11, none at
# rest. Any other answer, a refusal of the book above all, is final.
edax_check() {
  local out rc try
  for try in 1 2 3; do
    out=$("$clients/edax-check.sh" "$@"); rc=$?
    case $out in
      *"Edax loaded none"* | *"Edax wrote no negamaxed book"*) echo "(Edax read no command: try $try of 3)" >&2 ;;
      *) break ;;
    esac
  done
  printf '%s\n' "$out"
  return $rc
}
edax_ok() { edax_check "$1"; }
egaroucid_ok() { "$clients/egaroucid-check.sh" "$1" "$d/held.egbk3"; }

# same_as_egaroucid_import OLD LEVEL: OLD converted to .egbk3 (egbk_level
# LEVEL), and Egaroucid's import of OLD and its load of ours hold the same
# boards, values and levels.
same_as_egaroucid_import() {
  local old=$1 level=$2 lv=
  bm convert "$old" "$d/old.egbk3" --egbk-level "$level" || return 1
  case $old in *.egbk) lv=$level;; esac
  "$clients/egaroucid-check.sh" "$old" "$d/held-old.egbk3" $lv > /dev/null || return 1
  "$clients/egaroucid-check.sh" "$d/old.egbk3" "$d/held-new.egbk3" > /dev/null || return 1
  python3 "$clients/bookdiff.py" egbk3 "$d/held-old.egbk3" "$d/held-new.egbk3" --fields value,level
}

# fixed_as_edax_would IN: bookminer's fix of IN, then Edax's own negamax of
# that, changes nothing (an .egbk3 IN is fixed, converted, then compared on
# what an Egaroucid book stores).
fixed_as_edax_would() {
  local in=$1 name; name=$(basename "$in")
  bm fix "$in" "$d/fixed-$name" --out-dir "$d" || return 1
  case $in in
    *.dat)
      edax_check "$d/fixed-$name" "$d/neg-$name" || return 1
      python3 "$clients/bookdiff.py" edax "$d/fixed-$name" "$d/neg-$name" ;;
    *)
      bm convert "$d/fixed-$name" "$d/fixed-$name.dat" || return 1
      edax_check "$d/fixed-$name.dat" "$d/neg-$name.dat" || return 1
      python3 "$clients/bookdiff.py" edax "$d/fixed-$name.dat" "$d/neg-$name.dat" --fields value,links,leaf,level ;;
  esac
}

# converted_to CHECK IN OUT: converts IN to OUT, then runs CHECK on OUT.
converted_to() { bm convert "$2" "$d/$3" && "$1" "$d/$3"; }

# cut_then CHECK IN OUT WINDOW...: cuts IN under the window, then runs CHECK
# on OUT. A start the book does not hold is refused (exit 2, naming the
# start): that is no failure of the writer, and nothing is checked.
cut_then() {
  local ok=$1 in=$2 out=$d/$3; shift 3
  bm cut "$in" "$out" "$@" 2> "$d/cut.err"
  case $? in
    0) "$ok" "$out" ;;
    2) grep -q 'not in the book' "$d/cut.err" && echo "skipped: $(cat "$d/cut.err")" ;;
    *) cat "$d/cut.err"; return 1 ;;
  esac
}

# unchanged_by_edax SIZE: an unperturbed synthetic book of SIZE positions
# (synth writes each record as Edax's negamax leaves it) comes back
# unchanged from Edax's own negamax.
unchanged_by_edax() {
  bm synth --positions "$1" --perturb 0 "$d/synth-exact.dat" || return 1
  edax_check "$d/synth-exact.dat" "$d/neg-synth.dat" || return 1
  python3 "$clients/bookdiff.py" edax "$d/synth-exact.dat" "$d/neg-synth.dat"
}

# Egaroucid for Console, built once (about a minute) where build.sh's own
# folders are not; its start takes 2 s and 1.3 GB.
egaroucid_dir=$("$clients/egaroucid-console/build-egaroucid.sh" /tmp/book-clients/egaroucid-console 2> /dev/null) \
  || { echo "cannot build Egaroucid for Console"; exit 2; }
egaroucid="$egaroucid_dir/Egaroucid_for_Console.out -t 1"
edax_engine="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
extend_line=d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2

# egaroucid_left: Egaroucid processes still running from this check's folder
# (each run's scratch folder is in it), which no run may leave.
egaroucid_left() { pgrep -f "Egaroucid_for_Console.out.*$d/" | wc -l; }

# extended_as_edax_would ENGINE_FLAGS...: ../shared/books/extend grown by
# bookminer (the engines ENGINE_FLAGS name, 2 workers each unless they say)
# and by Edax's own `book extend`, from the start its README gives, as an
# Edax book and as an .egbk3.
extended_as_edax_would() {
  local in=$shared/books/extend/endgames-extend.dat line=$extend_line
  bm extend "$in" "$d/grown.dat" --start "$line" --workers 2 "$@" --out-dir "$d/o" || return 1
  grep -h '"engine"' "$d/o/extend.jsonl" | python3 -c '
import collections, json, sys
c = collections.Counter((json.loads(l)["protocol"]) for l in sys.stdin)
print("answers by protocol:", dict(c))' || return 1
  "$clients/edax-extend.sh" "$in" "$line" "$d/edax.dat" 2 || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/edax-neg.dat" "$d/grown.dat" --fields value,lower,upper,level || return 1
  edax_ok "$d/grown.dat" || return 1
  "$clients/edax-extend.sh" "$d/grown.dat" "$line" "$d/again.dat" 2 || return 1
  python3 "$clients/bookdiff.py" edax "$d/grown.dat" "$d/again.dat" --fields value || return 1
  bm convert "$in" "$d/in.egbk3" || return 1
  bm extend "$d/in.egbk3" "$d/grown.egbk3" --start "$line" --workers 2 "$@" --out-dir "$d/oe" \
    --min-empties 14 || return 1
  egaroucid_ok "$d/grown.egbk3" || return 1
  bm convert "$d/edax-neg.dat" "$d/edax-neg.egbk3" || return 1
  python3 "$clients/bookdiff.py" egbk3 "$d/edax-neg.egbk3" "$d/grown.egbk3" --fields value
}
check "extend with Edax as the engine, as Edax's own book extend" extended_as_edax_would --engine "$edax_engine"
check "extend with Egaroucid as the engine, as Edax's own book extend" extended_as_edax_would --engine "$egaroucid"
check "extend with a fleet of Egaroucid and Edax, as Edax's own book extend" extended_as_edax_would \
  --engine "$egaroucid" --engine "$edax_engine"

# resumed_with_egaroucid: extend of ../shared/books/extend with Egaroucid,
# killed (SIGKILL) once its journal holds 60 answers, then run again: the
# book written is byte for byte the book of a run never killed, the second
# run takes every answer the first gave and searches only the others, and
# no Egaroucid process is left.
resumed_with_egaroucid() {
  local in=$shared/books/extend/endgames-extend.dat line=$extend_line
  bm extend "$in" "$d/whole.dat" --start "$line" --engine "$egaroucid" --workers 1 --out-dir "$d/w" || return 1
  local total; total=$(wc -l < "$d/w/extend.jsonl")
  SOURCE_DATE_EPOCH=0 "$bin" extend "$in" "$d/killed.dat" --start "$line" --engine "$egaroucid" --workers 1 \
    --out-dir "$d/k" --config /dev/null --log-file "$d/k.log" > /dev/null 2>&1 &
  local pid=$!
  while [ "$(cat "$d/k/extend.jsonl" 2> /dev/null | wc -l)" -lt 60 ]; do
    kill -0 "$pid" 2> /dev/null || { echo "the run ended before it was killed"; return 1; }
    sleep 0.1
  done
  kill -KILL "$pid"; wait "$pid" 2> /dev/null
  local given; given=$(wc -l < "$d/k/extend.jsonl")
  sleep 1
  echo "killed after $given of $total answers; Egaroucid processes left by the kill: $(egaroucid_left)"
  bm extend "$in" "$d/killed.dat" --start "$line" --engine "$egaroucid" --workers 1 --out-dir "$d/k" \
    --summary json || return 1
  cmp "$d/whole.dat" "$d/killed.dat" || return 1
  local searched taken
  searched=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["searches"])' "$d/bm.out")
  taken=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["searches_from_journal"])' "$d/bm.out")
  echo "run again: $searched searched, $taken taken from the journal"
  [ "$((searched + taken))" = "$total" ] && [ "$taken" -ge "$((given - 2))" ] || return 1
  [ "$(wc -l < "$d/k/extend.jsonl")" = "$total" ] || { echo "a search made twice"; return 1; }
  [ "$(egaroucid_left)" = 0 ] || { echo "an Egaroucid process outlived its run"; return 1; }
}
check "extend with Egaroucid, killed and run again: the same book, nothing searched twice" resumed_with_egaroucid

# deepened_as_edax_checks: ../shared/books/extend with every level set to 2,
# deepened to level 8 with Edax as the engine (issue 48): every record with
# more than 4 empty squares has level 8 (at 4 or fewer level 2 already
# solves it, and SPEC §16 leaves a solved record alone); Edax's own `book
# correct`, which searches again every record its level solves, finds no
# error but those IN held already in the records deepening leaves alone;
# Edax loads OUT with nothing to repair and its own negamax changes nothing
# (values, bounds, counts, links, leaves, levels).
deepened_as_edax_checks() {
  python3 - "$shared/books/extend/endgames-extend.dat" "$d/level2.dat" 2 <<'PY' || return 1
import struct, sys
src, dst, level = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
struct.pack_into('<i', b, 18, level)
at = 42
while at < len(b):
    b[at + 39] = level
    at += 42 + 2 * b[at + 38]
open(dst, 'wb').write(b)
PY
  bm deepen "$d/level2.dat" "$d/deep.dat" --level 8 --workers 2 "$@" --out-dir "$d/o" || return 1
  python3 - "$d/deep.dat" 8 <<'PY' || return 1
import struct, sys
b = open(sys.argv[1], 'rb').read(); want = int(sys.argv[2])
at, deep, shallow = 42, 0, 0
while at < len(b):
    p, o = struct.unpack_from('<QQ', b, at)
    if 64 - bin(p | o).count('1') > 4:
        deep += 1
        shallow += b[at + 39] != want
    at += 42 + 2 * b[at + 38]
print(f"{deep} records with more than 4 empty squares, {shallow} not at level {want}")
sys.exit(1 if shallow or not deep else 0)
PY
  local before after
  before=$("$clients/edax-correct.sh" "$d/level2.dat" | tail -n 1)
  after=$("$clients/edax-correct.sh" "$d/deep.dat" | tail -n 1)
  echo "book correct of IN: $before"; echo "book correct of OUT: $after"
  local n_in e_in n_out e_out
  read -r n_in e_in < <(echo "$before" | sed -n 's/^\([0-9]*\) solved records searched, \([0-9]*\) errors.*/\1 \2/p')
  read -r n_out e_out < <(echo "$after" | sed -n 's/^\([0-9]*\) solved records searched, \([0-9]*\) errors.*/\1 \2/p')
  [ -n "$e_in" ] && [ -n "$e_out" ] && [ "$e_out" = "$e_in" ] && [ "$n_out" -gt "$n_in" ] || return 1
  edax_check "$d/deep.dat" "$d/neg.dat" || return 1
  python3 "$clients/bookdiff.py" edax "$d/deep.dat" "$d/neg.dat"
}
check "deepen with Edax as the engine: levels raised, Edax's correct and negamax agree" deepened_as_edax_checks \
  --engine "$edax_engine"
check "deepen with Egaroucid as the engine: levels raised, Edax's correct and negamax agree" \
  deepened_as_edax_checks --engine "$egaroucid"

# linked_as_edax_would IN: bookminer's fix --link of IN (Edax as the
# engine, one worker) against Edax's own `book fix` (which links, searches
# the leaves whose moves became links, negamaxes and sorts) followed by its
# `book negamax`: the same boards, values, bounds, levels, leaves and links;
# Edax loads ours with nothing to repair.
linked_as_edax_would() {
  local in=$1
  local edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  bm fix --link "$in" "$d/linked.dat" --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$in" - "$d/edax.dat" "book fix" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/linked.dat" "$d/edax-neg.dat" || return 1
  edax_ok "$d/linked.dat"
}
# deviated_as_edax_would: ../shared/books/extend at its line, bookminer's
# deviate --relative 2 --absolute 4 (Edax as the engine, one worker)
# against Edax's own `book deviate 2 4` then its `book negamax`: the same
# boards, values, bounds, levels, leaves and links; Edax loads ours whole.
deviated_as_edax_would() {
  local in=$shared/books/extend/endgames-extend.dat
  local line=d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2
  local edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  bm deviate "$in" "$d/deviated.dat" --start "$line" --relative 2 --absolute 4 --engine "$edax" --workers 1 \
    --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$in" "$line" "$d/edax.dat" "book deviate 2 4" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/deviated.dat" "$d/edax-neg.dat" || return 1
  edax_ok "$d/deviated.dat"
}
check "deviate 2 4 on the extend book as Edax's book deviate" deviated_as_edax_would

# linked_deviated_as_edax_would: WTHOR 2021 as Edax's book add left it,
# its header's n_empties set to 56 (4 plies), bookminer's fix --link then
# deviate --relative 2 --absolute 4 (Edax as the engine, one worker)
# against Edax's own `book fix` then `book deviate 2 4` then its `book
# negamax`: the same boards, values, bounds, levels and links (3,367
# records to 3,680); Edax loads ours whole. With the clients' all-zero
# evaluation every level-2 score is 0, so every line lies within any
# error and the book's own n_empties (41: 19 plies) lets either grow the
# whole game tree to 19 plies (measured: n_empties 55 adds 2,006 records,
# 53 had not ended in 10 minutes); leaf moves may differ between moves
# of equal score.
linked_deviated_as_edax_would() {
  python3 - "$shared/books/games/wthor2021-l2.edax.dat" "$d/in.dat" 56 <<'PY' || return 1
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<i', b, 22, int(sys.argv[3]))
open(sys.argv[2], 'wb').write(b)
PY
  bm fix --link "$d/in.dat" "$d/linked.dat" --engine "$edax_engine" --workers 1 --out-dir "$d/o" || return 1
  bm deviate "$d/linked.dat" "$d/deviated.dat" --relative 2 --absolute 4 --engine "$edax_engine" --workers 1 \
    --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$d/in.dat" - "$d/edax.dat" "book fix" "book deviate 2 4" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/deviated.dat" "$d/edax-neg.dat" --fields value,lower,upper,level,links \
    || return 1
  edax_ok "$d/deviated.dat"
}
check "fix --link, deviate 2 4 on wthor2021-l2 (4 plies) as Edax's book fix, book deviate" \
  linked_deviated_as_edax_would

# enhanced_as_edax_would: ../shared/books/extend at its line, bookminer's
# enhance --midgame-error 2 --endgame-error 4 --rounds 1 (Edax as the
# engine, one worker) against Edax 4.6's own `book enhance 2 4` (one round)
# then its `book negamax`: the same boards, values, bounds, levels, leaves
# and links, the errors in both headers; Edax loads ours whole.
enhanced_as_edax_would() {
  local in=$shared/books/extend/endgames-extend.dat
  local line=d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2
  local edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  bm enhance "$in" "$d/enhanced.dat" --start "$line" --midgame-error 2 --endgame-error 4 --rounds 1 \
    --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$in" "$line" "$d/edax.dat" "book enhance 2 4" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/enhanced.dat" "$d/edax-neg.dat" || return 1
  cmp <(head -c 38 "$d/enhanced.dat" | tail -c 16) <(head -c 38 "$d/edax-neg.dat" | tail -c 16) || return 1
  edax_ok "$d/enhanced.dat"
}
check "enhance 2 4 --rounds 1 on the extend book as Edax's book enhance" enhanced_as_edax_would
# linked_enhanced_as_edax_would: WTHOR 2021 as Edax's book add left it,
# linked by bookminer's fix --link, then enhanced as above from the initial
# position, against Edax's `book enhance 2 4` of the same linked book.
linked_enhanced_as_edax_would() {
  local in=$shared/books/games/wthor2021-l2.edax.dat
  local edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  bm fix --link "$in" "$d/linked.dat" --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  bm enhance "$d/linked.dat" "$d/enhanced.dat" --midgame-error 2 --endgame-error 4 --rounds 1 \
    --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$d/linked.dat" - "$d/edax.dat" "book enhance 2 4" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/enhanced.dat" "$d/edax-neg.dat" || return 1
  edax_ok "$d/enhanced.dat"
}
check "enhance 2 4 --rounds 1 on wthor2021-l2 linked as Edax's book enhance" linked_enhanced_as_edax_would

# played_as_edax_would: WTHOR 2021 as Edax's book add left it, bookminer's
# play (Edax as the engine, one worker) against Edax 4.6's own `book play`
# then its `book negamax`: the same boards, values, bounds and levels (a
# few leaf moves differ between moves of the same score); Edax loads ours.
played_as_edax_would() {
  local in=$shared/books/games/wthor2021-l2.edax.dat
  local edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  bm play "$in" "$d/played.dat" --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$in" - "$d/edax.dat" "book play" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/played.dat" "$d/edax-neg.dat" --fields value,lower,upper,level || return 1
  edax_ok "$d/played.dat"
}
check "play on wthor2021-l2 as Edax's book play" played_as_edax_would

# filled_as_edax_would BOOK D: bookminer's fill --depth D (Edax as the
# engine, one worker) against Edax 4.6's own `book fill D` then its `book
# negamax`: the same boards, values, bounds and levels (a leaf move may
# differ between moves of the same score); Edax loads ours whole.
filled_as_edax_would() {
  local in=$1 depth=$2
  local edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  bm fill "$in" "$d/filled.dat" --depth "$depth" --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  "$clients/edax-book.sh" "$in" - "$d/edax.dat" "book fill $depth" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  python3 "$clients/bookdiff.py" edax "$d/filled.dat" "$d/edax-neg.dat" --fields value,lower,upper,level || return 1
  edax_ok "$d/filled.dat"
}
for depth in 1 2; do
  check "fill --depth $depth on wthor2021-l2 as Edax's book fill" \
    filled_as_edax_would "$shared/books/games/wthor2021-l2.edax.dat" "$depth"
done
check "fill --depth 2 on edax46-plus-games as Edax's book fill" \
  filled_as_edax_would "$shared/books/games/edax46-plus-games.edax.dat" 2
for games in wthor2021-l2 edax46-plus-games wthor1977-l10; do
  check "fix --link $games.edax.dat as Edax's book fix" linked_as_edax_would "$shared/books/games/$games.edax.dat"
done

# merged_then A B OUT FLAGS...: merges A and B into OUT; an Edax OUT must
# load in Edax with nothing to repair and come back from Edax's own negamax
# with the same values, bounds, levels, links and leaves; an .egbk3 OUT
# must be held by Egaroucid as written.
merged_then() {
  local a=$1 b=$2 out=$d/$3; shift 3
  bm merge "$a" "$b" "$out" --out-dir "$d/o" "$@" || return 1
  case $out in
    *.dat)
      edax_check "$out" "$d/neg.dat" || return 1
      python3 "$clients/bookdiff.py" edax "$out" "$d/neg.dat" ;;
    *) egaroucid_ok "$out" ;;
  esac
}

# merged_with_edax_extend: the extend book merged with what Edax's own `book
# extend` made of it holds what Edax's negamax of that makes of it.
merged_with_edax_extend() {
  local in=$shared/books/extend/endgames-extend.dat
  local line=d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2
  "$clients/edax-extend.sh" "$in" "$line" "$d/edax.dat" 2 || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  merged_then "$in" "$d/edax.dat" merged.dat || return 1
  python3 "$clients/bookdiff.py" edax "$d/edax-neg.dat" "$d/merged.dat" --fields value,lower,upper,level
}
check "merge the extend book with Edax's own extension of it" merged_with_edax_extend
check "merge edax46-l2-small.dat with itself --link, stale leaves searched by Edax" \
  merged_then "$shared/books/edax46-l2-small.dat" "$shared/books/edax46-l2-small.dat" m.dat --link \
  --engine "$edax_engine" --workers 1

# counts FILE: the missing, good and bad of a `check --summary json` summary.
counts() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["missing"], d["good"], d["bad"])' "$1"; }

# edax_counts BOOK GAMES: the missing, good and bad of Edax's own book check.
edax_counts() {
  "$clients/edax-book-check.sh" "$1" "$2" | sed -nE 's/.*Positions : ([0-9]+) missing, ([0-9]+) good, ([0-9]+) bad.*/\1 \2 \3/p'
}

# checked_as_edax BOOK GAMES: bookminer's check of one game file counts the
# missing, good and bad moves Edax's own book check counts.
checked_as_edax() {
  local ours theirs
  bm check "$1" "$2" --out-dir "$d/o" -q --summary json || return 1
  ours=$(counts "$d/bm.out"); theirs=$(edax_counts "$1" "$2")
  [ -n "$theirs" ] && [ "$ours" = "$theirs" ] || { echo "bookminer: $ours; Edax: $theirs"; return 1; }
}

# checked_as_recorded: check of WTH_2021.wtb against edax46-l2-small.dat
# prints, byte for byte, the line Edax printed (../shared/books/games).
checked_as_recorded() {
  bm check "$shared/books/edax46-l2-small.dat" "$shared/books/games/wthor/WTH_2021.wtb" --out-dir "$d/o" || return 1
  grep -qxF "$(cat "$shared/books/games/edax46-check-2021.edax.txt")" "$d/bm.out" || { cat "$d/bm.out"; return 1; }
}

# checked_pairs_as_edax BOOK A B: two games, one a line, whose last pairs
# are images of each other on a board that is its own image: Edax's vector
# code counts them as one pair or two, and check must count as it does.
checked_pairs_as_edax() {
  printf '%s\n%s\n' "$2" "$3" > "$d/pair.txt"
  checked_as_edax "$1" "$d/pair.txt"
}

# checked_egaroucid_as_edax_converted BOOK GAMES: check of an Egaroucid book
# counts the missing and bad moves Edax's book check counts of the Edax book
# convert makes of it, and no more good ones (the conversion gives Edax a
# leaf where the Egaroucid book scores no move: docs/games.md).
checked_egaroucid_as_edax_converted() {
  local om og ob tm tg tb theirs
  bm convert "$1" "$d/converted.dat" || return 1
  bm check "$1" "$2" --out-dir "$d/o" -q --summary json || return 1
  read -r om og ob <<< "$(counts "$d/bm.out")"
  theirs=$(edax_counts "$d/converted.dat" "$2"); read -r tm tg tb <<< "$theirs"
  [ -n "$theirs" ] && [ "$om" = "$tm" ] && [ "$ob" = "$tb" ] && [ "$og" -le "$tg" ] ||
    { echo "bookminer: $om $og $ob; Edax of the conversion: $theirs"; return 1; }
}

# written_as WTB FORMAT OUT: the games of a WTHOR file written as a text,
# PGN or SGF file, moves in file order, passes left to the replay (Edax's
# PGN reader loses the move after a written black pass: docs/games.md). A
# PGN file ends with a game of tags alone, since Edax never takes a PGN
# file's last game.
written_as() {
  python3 - "$@" <<'PY'
import sys
wtb, form, out = sys.argv[1:]
data = open(wtb, "rb").read()
games = []
for at in range(16, len(data) - 67, 68):
    moves = []
    for b in data[at + 8:at + 68]:
        if b == 0:
            break
        moves.append("abcdefgh"[b % 10 - 1] + str(b // 10))
    games.append(moves)
with open(out, "w") as f:
    for g, moves in enumerate(games):
        if form == "txt":
            f.write("".join(moves) + "\n")
        elif form == "pgn":
            f.write('[Event "WTHOR"]\n[Round "%d"]\n[Result "*"]\n\n' % (g + 1))
            for i, m in enumerate(moves):
                f.write(("%d. " % (i // 2 + 1) if i % 2 == 0 else "") + m + ("\n" if i % 10 == 9 else " "))
            f.write("\n{from WTHOR} *\n\n")
        else:
            f.write("(;FF[4]GM[2]PB[?]PW[?]SZ[8]AB[d5][e4]AW[d4][e5]PL[B]\n")
            f.write("".join("%s[%s];" % ("BW"[i % 2], m) for i, m in enumerate(moves)) + ")\n")
    if form == "pgn":
        f.write('[Event "end"]\n')
PY
}

# checked_formats_as_edax BOOK WTB: the games of a WTHOR file written as
# text, PGN and SGF are each checked as Edax checks them, and to the same
# counts as the WTHOR file itself.
checked_formats_as_edax() {
  local form first ours
  bm check "$1" "$2" --out-dir "$d/o" -q --summary json || return 1
  first=$(counts "$d/bm.out")
  for form in txt pgn sgf; do
    written_as "$2" "$form" "$d/games.$form" || return 1
    checked_as_edax "$1" "$d/games.$form" || { echo "as .$form"; return 1; }
    ours=$(counts "$d/bm.out")
    [ "$ours" = "$first" ] || { echo ".$form: $ours; .wtb: $first"; return 1; }
  done
}

games=$shared/books/games
check "check WTH_2021 against edax46-l2-small: Edax's recorded line" checked_as_recorded
check "check wthor-1980.ggf against edax46-l2-small as Edax's book check" \
  checked_as_edax "$shared/books/edax46-l2-small.dat" "$games/wthor-1980.ggf"
check "check WTH_1977 against wthor1977-l10 (60 moves a game) as Edax's book check" \
  checked_as_edax "$games/wthor1977-l10.edax.dat" "$games/wthor/WTH_1977.wtb"
check "check WTH_1980 against wthor2021-l2, negamaxed, as Edax's book check" \
  checked_as_edax "$games/wthor2021-l2.edax-negamax.dat" "$games/wthor/WTH_1980.wtb"
check "check wthor-1980.ggf against edax46-plus-games as Edax's book check" \
  checked_as_edax "$games/edax46-plus-games.edax.dat" "$games/wthor-1980.ggf"
check "check WTH_1985 against edax46-plus-games, negamaxed, as Edax's book check" \
  checked_as_edax "$games/edax46-plus-games.edax-negamax.dat" "$games/wthor/WTH_1985.wtb"
check "check WTH_2021 written as .txt, .pgn and .sgf against edax46-l2-small as Edax's book check" \
  checked_formats_as_edax "$shared/books/edax46-l2-small.dat" "$games/wthor/WTH_2021.wtb"
check "check WTH_1980 written as .txt, .pgn and .sgf against wthor2021-l2, negamaxed, as Edax's" \
  checked_formats_as_edax "$games/wthor2021-l2.edax-negamax.dat" "$games/wthor/WTH_1980.wtb"
check "check two games whose last pairs Edax counts as one" \
  checked_pairs_as_edax "$shared/books/edax46-l2-small.dat" d3c3f5f6b3 c4c3e6f6c2
check "check two games whose last pairs Edax counts as two" \
  checked_pairs_as_edax "$games/wthor1977-l10.edax.dat" d3c3f5f6b3 e6f6c4c3g6
check "check WTH_2021 against edax46-l2-small.egbk3 as Edax's book check of its conversion" \
  checked_egaroucid_as_edax_converted "$shared/books/egbk3/edax46-l2-small.egbk3" "$games/wthor/WTH_2021.wtb"
check "check wthor-1980.ggf against edax46-l2-small-perturbed.egbk3 as Edax's of its conversion" \
  checked_egaroucid_as_edax_converted "$shared/books/egbk3/edax46-l2-small-perturbed.egbk3" "$games/wthor-1980.ggf"

# added_as_edax EXPECTED IN GAMES...: IN (or, for IN "new L D", the book
# `new --level L --depth D` starts) with GAMES added, Edax as the engine,
# holds EXPECTED's boards, links, values, bounds and levels (leaf moves may
# differ between moves of equal score) and loads in Edax with nothing to
# repair.
added_as_edax() {
  local expected=$1 in=$2 edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  shift 2
  if [ "${in%% *}" = new ]; then
    read -r _ level depth <<< "$in"
    bm new "$d/new.dat" --level "$level" --depth "$depth" --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
    in=$d/new.dat
  fi
  bm add "$in" "$@" "$d/added.dat" --engine "$edax" --workers 2 --out-dir "$d/o" || return 1
  python3 "$clients/bookdiff.py" edax "$d/added.dat" "$expected" --fields value,lower,upper,level,links || return 1
  edax_ok "$d/added.dat"
}

# added_as_edax_live IN GAMES...: as added_as_edax, against what Edax's own
# `book add` (edax-add.sh), then its negamax, make of IN and GAMES now.
added_as_edax_live() {
  "$clients/edax-add.sh" --book "$1" "$d/edax.dat" "${@:2}" > /dev/null || return 1
  edax_check "$d/edax.dat" "$d/edax-neg.dat" > /dev/null || return 1
  added_as_edax "$d/edax-neg.dat" "$@"
}

# added_egaroucid_as_edax EXPECTED LEVEL DEPTH GAMES...: a new .egbk3 book
# (`new`) with GAMES added at LEVEL, DEPTH − 1 plies a game (what an Edax
# book of depth DEPTH plays; an Egaroucid book's --depth is in plies), Edax
# as the engine, holds the boards, values and levels of EXPECTED (an Edax
# book, converted) and loads in Egaroucid.
added_egaroucid_as_edax() {
  local expected=$1 level=$2 depth=$3 edax="$built/edax/bin/edax -n 1 -eval-file $built/edax/data/eval.dat"
  shift 3
  bm new "$d/new.egbk3" --level "$level" --engine "$edax" --workers 1 --out-dir "$d/o" || return 1
  bm add "$d/new.egbk3" "$@" "$d/added.egbk3" --level "$level" --depth "$((depth - 1))" --engine "$edax" \
    --workers 2 --out-dir "$d/o" || return 1
  bm convert "$expected" "$d/expected.egbk3" || return 1
  python3 "$clients/bookdiff.py" egbk3 "$d/added.egbk3" "$d/expected.egbk3" --fields value,level || return 1
  egaroucid_ok "$d/added.egbk3"
}

check "new 10 60, add WTH_1977 as Edax's book new, book add, book negamax" \
  added_as_edax "$games/wthor1977-l10.edax-negamax.dat" "new 10 60" "$games/wthor/WTH_1977.wtb"
check "new 2 20, add WTH_2021 as Edax's book new, book add, book negamax" \
  added_as_edax "$games/wthor2021-l2.edax-negamax.dat" "new 2 20" "$games/wthor/WTH_2021.wtb"
check "add WTH_2021 and wthor-1980.ggf to edax46-l2-small as Edax's book add, book negamax" \
  added_as_edax "$games/edax46-plus-games.edax-negamax.dat" "$shared/books/edax46-l2-small.dat" \
  "$games/wthor/WTH_2021.wtb" "$games/wthor-1980.ggf"
check "new .egbk3, add WTH_2021 at level 2, 19 plies, as Edax's book new 2 20, book add, book negamax" \
  added_egaroucid_as_edax "$games/wthor2021-l2.edax-negamax.dat" 2 20 "$games/wthor/WTH_2021.wtb"
check "add WTH_1985 to edax46-l2-small as Edax's own book add of it now" \
  added_as_edax_live "$shared/books/edax46-l2-small.dat" "$games/wthor/WTH_1985.wtb"

books=("$shared"/books/*.dat "$shared"/books/egbk3/*.egbk3)
olds=("$shared"/books/egbk3/*.egbk2 "$shared"/books/egbk3/*.egbk)
if [ "$synth_size" -gt 0 ]; then
  SOURCE_DATE_EPOCH=0 "$bin" synth --positions "$synth_size" "$work/synth.dat" --config /dev/null \
    --log-file /dev/null > /dev/null && books+=("$work/synth.dat")
  check "synth --perturb 0 unchanged by Edax's negamax" unchanged_by_edax "$synth_size"
fi

for in in "${books[@]}"; do
  name=$(basename "$in")
  check "convert $name to Edax" converted_to edax_ok "$in" c.dat
  check "convert $name to .egbk3" converted_to egaroucid_ok "$in" c.egbk3
  case $in in *.dat) out=cut.dat; ok=edax_ok;; *) out=cut.egbk3; ok=egaroucid_ok;; esac
  check "cut $name --deviation 2" cut_then "$ok" "$in" "$out" --deviation 2
  check "cut $name --error 3 --max-ply 12" cut_then "$ok" "$in" "$out" --error 3 --max-ply 12
  check "cut $name --start f5d6 --deviation 1" cut_then "$ok" "$in" "$out" --start f5d6 --deviation 1
  check "fix $name, then Edax's negamax" fixed_as_edax_would "$in"
  check "merge $name with itself --link into Edax" merged_then "$in" "$in" m.dat --link
  check "merge $name with the first book into .egbk3" merged_then "$in" "${books[0]}" m.egbk3
done

# The nine moves the book knows at F5F6E6F4 in edax46-l2-small.dat and
# their scores, as `inspect` prints them (docs/pictures.md).
seen_moves="C3 0,D3 -1,E3 0,F3 3,G3 -1,G4 0,G5 -1,G6 0,G7 -2"

# squares_of FILE: the data-move and data-score pairs of a picture or page,
# sorted, one "MOVE SCORE" per comma.
squares_of() {
  grep -o 'data-move="[A-H][1-8]" data-score="-\{0,1\}[0-9]*"' "$1" \
    | sed 's/data-move="\(..\)" data-score="\(.*\)"/\1 \2/' | sort | paste -sd, -
}

# printed_moves [LINE]: the moves and scores `inspect` prints at LINE
# (F5F6E6F4 unless named; "  C6 -> F3 +3", the leaf's line too).
printed_moves() {
  "$bin" inspect "$shared/books/edax46-l2-small.dat" "${1:-F5F6E6F4}" --config /dev/null \
    | awk '/^(  |leaf: ).. +-> /{ for (i = 1; i < NF; i++) if ($i == "->") break;
        s = $(i + 2); sub(/^\+/, "", s); print $(i + 1) " " s }' | sort | paste -sd, -
}

# picture_as_inspect_prints: inspect --svg's squares are the moves and
# scores inspect prints, the nine known.
picture_as_inspect_prints() {
  bm inspect "$shared/books/edax46-l2-small.dat" F5F6E6F4 --svg "$d/pos.svg" || return 1
  local drawn printed; drawn=$(squares_of "$d/pos.svg"); printed=$(printed_moves)
  [ "$drawn" = "$printed" ] || { echo "drawn: $drawn; printed: $printed"; return 1; }
  [ "$drawn" = "$seen_moves" ] || { echo "drawn: $drawn; expected: $seen_moves"; return 1; }
}

# serve_at BOOK: bookminer serve BOOK on a free port, in the background;
# sets server (its pid) and address (its URL) once it printed it, and
# fails, the server stopped, when it prints none within 10 s.
serve_at() {
  "$bin" serve "$1" --port 0 --config /dev/null > "$d/serve.out" 2> "$d/serve.err" &
  server=$! address=
  local i
  for i in $(seq 100); do
    address=$(grep -o 'http://127.0.0.1:[0-9]*' "$d/serve.out" 2> /dev/null) && return 0
    sleep 0.1
  done
  echo "the server printed no address"; cat "$d/serve.err"; kill $server; return 1
}

# explorer_as_chromium_renders: the explorer's page at /line/F5F6E6F4, as
# headless Chromium renders it once the page's scripts ran, holds the
# squares inspect prints; a screenshot is taken; Ctrl-C stops the server.
explorer_as_chromium_renders() {
  local server address
  serve_at "$shared/books/edax46-l2-small.dat" || return 1
  local chromium=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$(mktemp -d -p "$d")")
  timeout 120 "${chromium[@]}" --virtual-time-budget=5000 --dump-dom "$address/line/F5F6E6F4" > "$d/dom.html" 2> "$d/chromium.err"
  timeout 120 "${chromium[@]}" --window-size=1100,760 --screenshot="$d/explorer.png" "$address/line/F5F6E6F4" \
    >> "$d/chromium.err" 2>&1
  kill -INT $server; wait $server; local stopped=$?
  local rendered printed; rendered=$(squares_of "$d/dom.html"); printed=$(printed_moves)
  [ "$rendered" = "$printed" ] && [ "$rendered" = "$seen_moves" ] \
    || { echo "rendered: $rendered; printed: $printed; expected: $seen_moves"; return 1; }
  [ -s "$d/explorer.png" ] || { echo "no screenshot"; tail -n 5 "$d/chromium.err"; return 1; }
  [ "$stopped" = 0 ] || { echo "Ctrl-C: exit status $stopped"; return 1; }
}

# explorer_as_a_person_plays_it: in headless Chromium, the page at
# /line/F5F6E6F4 plays F3 when its square is clicked, goes back and
# forward, and goes to a kifu pasted; at each step its board carries the
# moves and scores inspect prints there (scripts/explorer-clicks.py).
explorer_as_a_person_plays_it() {
  local server address profile; profile=$(mktemp -d -p "$d")
  serve_at "$shared/books/edax46-l2-small.dat" || return 1
  local line; for line in F5F6E6F4 F5F6E6F4F3 F5D6C3; do
    printf '%s\t%s\n' "$line" "$(printed_moves "$line")"
  done | python3 -c 'import json, sys; print(json.dumps({l: sorted(m.split(",")) for l, m in (x.rstrip("\n").split("\t") for x in sys.stdin)}))' \
    > "$d/expected.json"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" --remote-debugging-port=0 \
    "$address/line/F5F6E6F4" > "$d/chromium.err" 2>&1 &
  local browser=$! port=
  for i in $(seq 300); do
    port=$(head -n 1 "$profile/DevToolsActivePort" 2> /dev/null) && [ -n "$port" ] && break
    sleep 0.1
  done
  local played=1
  [ -n "$port" ] && timeout 120 python3 "$repo/scripts/explorer-clicks.py" "$port" "$d/expected.json" && played=0
  kill $browser; wait $browser 2> /dev/null
  kill -INT $server; wait $server
  return $played
}

# learned_as_egaroucid_would LEVEL LOOPS: learn on the extend book at its
# line as .egbk3 (errors 2/4/2), against Egaroucid's own book_deviate run by
# egbook on the same book: the records both hold the same, the rest lines
# through moves of equal score (scripts/egbook-compare.py, docs/egaroucid.md).
learned_as_egaroucid_would() {
  "$bin" convert "$shared/books/extend/endgames-extend.dat" "$d/ext.egbk3" --config /dev/null -q || return 1
  bm learn "$d/ext.egbk3" "$d/learned.egbk3" --start "$extend_line" --level "$1" --loops "$2" \
    --engine "$egaroucid" --workers 2 --out-dir "$d/o" || return 1
  "$egaroucid_dir/egbook" deviate "$d/ext.egbk3" "$d/egbook.egbk3" "$extend_line" "$1" 60 2 4 2 "$2" \
    > /dev/null 2>&1 || return 1
  python3 "$repo/scripts/egbook-compare.py" "$d/egbook.egbk3" "$d/learned.egbk3"
}
check "learn at level 60, 1 loop, on the extend book as Egaroucid's book deviate" learned_as_egaroucid_would 60 1
check "learn at level 21, 2 loops, on the extend book as Egaroucid's book deviate" learned_as_egaroucid_would 21 2

# learned_from_edax_as_egaroucid_would: learn reads the extend book as Edax
# wrote it (converted for the run, as convert converts it) into .egbk3, and
# writes what egbook's book_deviate writes on the book convert makes.
learned_from_edax_as_egaroucid_would() {
  "$bin" convert "$shared/books/extend/endgames-extend.dat" "$d/ext.egbk3" --config /dev/null -q || return 1
  bm learn "$shared/books/extend/endgames-extend.dat" "$d/learned.egbk3" --start "$extend_line" --level 60 \
    --loops 1 --engine "$egaroucid" --workers 2 --out-dir "$d/o" || return 1
  "$egaroucid_dir/egbook" deviate "$d/ext.egbk3" "$d/egbook.egbk3" "$extend_line" 60 60 2 4 2 1 \
    > /dev/null 2>&1 || return 1
  python3 "$repo/scripts/egbook-compare.py" "$d/egbook.egbk3" "$d/learned.egbk3"
}
check "learn at level 60 on the extend book as Edax's .dat, as Egaroucid's book deviate" \
  learned_from_edax_as_egaroucid_would

# recalculated_as_egaroucid_would: the extend book as .egbk3 with every
# level set to 10, its leaves within 2/4 recalculated at 21, against egbook recalc.
recalculated_as_egaroucid_would() {
  "$bin" convert "$shared/books/extend/endgames-extend.dat" "$d/ext.egbk3" --config /dev/null -q || return 1
  python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
for o in range(14, len(d), 25): d[o + 17] = d[o + 24] = 10
open(sys.argv[2], "wb").write(d)' "$d/ext.egbk3" "$d/ext10.egbk3" || return 1
  bm recalculate "$d/ext10.egbk3" "$d/raised.egbk3" --start "$extend_line" --level 21 --engine "$egaroucid" \
    --workers 2 --out-dir "$d/o" || return 1
  "$egaroucid_dir/egbook" recalc "$d/ext10.egbk3" "$d/egbook.egbk3" "$extend_line" 21 60 2 4 > /dev/null 2>&1 \
    || return 1
  python3 "$repo/scripts/egbook-compare.py" "$d/egbook.egbk3" "$d/raised.egbk3"
}
check "recalculate at level 21 on the extend book as Egaroucid's leaf recalculation" recalculated_as_egaroucid_would

# The accuracy grade inspect gives each move, against egbook accuracy
# (Egaroucid's Book_accuracy), on the first 60 positions of public books.
for book in egbk3/edax46-l2-small.egbk3 edax46-l2-small.dat egbk3/edax-ray-l1-perturbed3.egbk3; do
  check "accuracy grades of $(basename "$book") as Egaroucid's" \
    "$repo/scripts/egbook-accuracy.sh" "$bin" "$egaroucid_dir/egbook" "$shared/books/$book" "" 60
done

# explorer_keeps_answering: serve as a hostile client meets it (issue 64):
# a client that pipelines 2,000 requests and reads none holds no other up
# (20 others answered, each within 5 s), a 20 KiB header gets 431, another
# site's Host 403, and the book rewritten under it (cut to nothing, then
# written again, as Edax saves a book) is read again or answered 503
# saying why, never "not in the book"; Ctrl-C then ends it with status 0.
explorer_keeps_answering() {
  cp "$shared/books/edax46-l2-small.dat" "$d/served.dat" || return 1
  local server address
  serve_at "$d/served.dat" || return 1
  timeout 120 python3 - "$address" "$d/served.dat" <<'PY'
import socket, sys, threading, time
addr = sys.argv[1].split("//")[1]
host, port = addr.split(":")
def send(raw):
    data = b""
    try:
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(raw)
        while chunk := s.recv(65536):
            data += chunk
    except OSError:
        pass
    status = int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.") else 0
    return status, data
def get(path, name=addr):
    return send(f"GET {path} HTTP/1.1\r\nHost: {name}\r\n\r\n".encode())
failed = []
greedy = socket.create_connection((host, int(port)))
pipelined = f"GET /line/F5F6E6F4 HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode() * 2000
threading.Thread(target=lambda: greedy.sendall(pipelined), daemon=True).start()
for i in range(20):
    status, _ = get("/api/view?pos=F5F6E6F4")
    if status != 200:
        failed.append(f"beside a client reading nothing, request {i + 1}: status {status} (0: none in 5 s)")
status, _ = send(f"GET /line/F5 HTTP/1.1\r\nHost: {addr}\r\nX-Big: {'a' * 20000}\r\n\r\n".encode())
if status != 431:
    failed.append(f"a 20 KiB header: status {status}, not 431")
status, body = get("/api/inspect/F5F6E6F4", "attacker.example")
if status != 403 or b"F3" in body:
    failed.append(f"Host attacker.example: status {status}, not 403")
book = open(sys.argv[2], "rb").read()
with open(sys.argv[2], "wb") as rewritten:
    rewritten.flush()
    seen = [get("/api/inspect/F5F6E6F4")]
    rewritten.write(book)
deadline = time.monotonic() + 20
while time.monotonic() < deadline and seen[-1][0] != 200:
    time.sleep(0.2)
    seen.append(get("/api/inspect/F5F6E6F4"))
for status, body in seen:
    if status not in (200, 503) or b"not in the book" in body:
        failed.append(f"the book rewritten: status {status}: {body[-200:]!r}")
if seen[-1][0] != 200:
    failed.append(f"the book rewritten is not read again in 20 s: status {seen[-1][0]}")
print("; ".join(failed) if failed else f"answered: {[s for s, _ in seen]}")
sys.exit(1 if failed else 0)
PY
  local answered=$?
  kill -INT $server; wait $server; local stopped=$?
  [ "$stopped" = 0 ] || { echo "Ctrl-C: exit status $stopped"; return 1; }
  return $answered
}

# Debian's chromium, for the explorer's check (CI's image may lack it).
command -v chromium > /dev/null || { apt-get update && apt-get install -y chromium; } > /dev/null 2>&1 \
  || echo "chromium could not be installed: the explorer's check will fail"
check "the explorer answers beside a client reading nothing, refuses a long header and another site's name, reads its book again" explorer_keeps_answering
check "inspect --svg draws the moves and scores inspect prints" picture_as_inspect_prints
check "the explorer, as headless Chromium renders it, holds them too" explorer_as_chromium_renders
check "the explorer in headless Chromium: a square clicked, back, forward, a kifu pasted" explorer_as_a_person_plays_it

for old in "${olds[@]}"; do
  [ -e "$old" ] || continue
  name=$(basename "$old")
  for level in 1 3; do
    check "convert $name (level $level) as Egaroucid imports it" same_as_egaroucid_import "$old" "$level"
    [ "${old##*.}" = egbk ] || break
  done
done
wait

pass=0; fail=0; skipped=0
for i in $(seq "$n_checks"); do
  d=$work/check-$i
  if [ "$(cat "$d/status" 2> /dev/null)" = 0 ]; then
    pass=$((pass + 1))
    grep -q '^skipped: ' "$d/out" && skipped=$((skipped + 1))
    [ -n "${VERBOSE:-}" ] && { echo "ok   $(cat "$d/label")"; grep -v '^progress: ' "$d/out" | sed 's/^/    /' | tail -n 12; }
  else
    fail=$((fail + 1)); echo "FAIL $(cat "$d/label")"; sed 's/^/    /' "$d/out" | head -n 8
  fi
done
echo "$pass passed ($skipped of them cuts from a start the book does not hold), $fail failed"
[ "$fail" = 0 ]
