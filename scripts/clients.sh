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
#     the boards, values and levels Egaroucid loads from its source.
#
#   scripts/clients.sh [BIN]          # BIN: default target/release/bookminer
#   SYNTH=100000 scripts/clients.sh   # size of the synthetic book (0: none)
#
# Needs ../shared beside the repository (CI has it); prints one line per
# check and ends with "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/bookminer}")
shared=$(realpath ../shared)
clients=$shared/tools/clients
synth_size=${SYNTH:-100000}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0

# check LABEL COMMAND...: runs a check, counting and naming it.
check() {
  local label=$1; shift
  if "$@" > "$work/check.out" 2>&1; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL $label"; sed 's/^/    /' "$work/check.out" | head -n 8
  fi
}

# bm ARGS...: bookminer with no config file, logging nowhere, its summary kept.
bm() { SOURCE_DATE_EPOCH=0 "$bin" "$@" --config /dev/null --log-file "$work/log" > "$work/bm.out"; }

edax_ok() { "$clients/edax-check.sh" "$1"; }
egaroucid_ok() { "$clients/egaroucid-check.sh" "$1" "$work/held.egbk3"; }

# same_as_egaroucid_import OLD CONVERTED: Egaroucid's import of the old book
# and its load of our .egbk3 hold the same boards, values and levels.
same_as_egaroucid_import() {
  local level=${3:-}
  "$clients/egaroucid-check.sh" "$1" "$work/held-old.egbk3" $level > /dev/null || return 1
  "$clients/egaroucid-check.sh" "$2" "$work/held-new.egbk3" > /dev/null || return 1
  python3 "$clients/bookdiff.py" egbk3 "$work/held-old.egbk3" "$work/held-new.egbk3" --fields value,level
}

# fixed_as_edax_would IN: bookminer's fix of IN, then Edax's own negamax of
# that, changes nothing (an .egbk3 IN is fixed, converted, then compared on
# what an Egaroucid book stores).
fixed_as_edax_would() {
  local in=$1 name; name=$(basename "$in")
  case $in in
    *.dat)
      bm fix "$in" "$work/fixed-$name" --out-dir "$work" || return 1
      "$clients/edax-check.sh" "$work/fixed-$name" "$work/neg-$name" || return 1
      python3 "$clients/bookdiff.py" edax "$work/fixed-$name" "$work/neg-$name" ;;
    *)
      bm fix "$in" "$work/fixed-$name" --out-dir "$work" || return 1
      bm convert "$work/fixed-$name" "$work/fixed-$name.dat" || return 1
      "$clients/edax-check.sh" "$work/fixed-$name.dat" "$work/neg-$name.dat" || return 1
      python3 "$clients/bookdiff.py" edax "$work/fixed-$name.dat" "$work/neg-$name.dat" --fields value,links,leaf,level ;;
  esac
}

# converted_to CHECK IN OUT: converts IN to OUT, then runs CHECK on OUT.
converted_to() { bm convert "$2" "$3" && "$1" "$3"; }

has_fix() { "$bin" fix --help > /dev/null 2>&1; }

# unchanged_by_edax BOOK: Edax's own negamax of BOOK changes nothing.
unchanged_by_edax() {
  "$clients/edax-check.sh" "$1" "$work/neg-synth.dat" || return 1
  python3 "$clients/bookdiff.py" edax "$1" "$work/neg-synth.dat"
}

books=("$shared"/books/*.dat "$shared"/books/egbk3/*.egbk3)
olds=("$shared"/books/egbk3/*.egbk2 "$shared"/books/egbk3/*.egbk)
if [ "$synth_size" -gt 0 ]; then
  bm synth --positions "$synth_size" "$work/synth.dat" && books+=("$work/synth.dat")
  # synth writes each record as Edax's negamax leaves it: unperturbed,
  # Edax's negamax finds nothing to change.
  bm synth --positions "$synth_size" --perturb 0 "$work/synth-exact.dat" \
    && check "synth --perturb 0 unchanged by Edax's negamax" unchanged_by_edax "$work/synth-exact.dat"
fi

for in in "${books[@]}"; do
  name=$(basename "$in")
  check "convert $name to Edax" converted_to edax_ok "$in" "$work/c.dat"
  check "convert $name to .egbk3" converted_to egaroucid_ok "$in" "$work/c.egbk3"
  for window in "--deviation 2" "--error 3 --max-ply 12" "--start f5d6 --deviation 1"; do
    case $in in *.dat) out=$work/cut.dat; ok=edax_ok;; *) out=$work/cut.egbk3; ok=egaroucid_ok;; esac
    # A start not in a small book is refused, not a failure of the writer.
    if bm cut "$in" "$out" $window 2> /dev/null; then
      check "cut $name $window" "$ok" "$out"
    fi
  done
  if has_fix; then
    check "fix $name, then Edax's negamax" fixed_as_edax_would "$in"
  fi
done

for old in "${olds[@]}"; do
  [ -e "$old" ] || continue
  name=$(basename "$old")
  for level in 1 3; do
    if bm convert "$old" "$work/old.egbk3" --egbk-level "$level" 2> "$work/err"; then
      case $old in *.egbk) lv=$level;; *) lv=;; esac
      check "convert $name (level $level) as Egaroucid imports it" same_as_egaroucid_import "$old" "$work/old.egbk3" $lv
    else
      fail=$((fail + 1)); echo "FAIL convert $name: $(cat "$work/err")"
    fi
    [ "${old##*.}" = egbk ] || break
  done
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
