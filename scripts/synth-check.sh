#!/usr/bin/env bash
# Does Edax 4.6's own `book negamax` leave an unperturbed synthetic book as
# synth wrote it? Writes `synth --positions N --perturb 0`, gives it to Edax
# (../shared/tools/clients/edax-check.sh: loads whole, nothing to repair, no
# warning) and compares Edax's negamaxed book with it in every field
# (bookdiff.py). Exit 0 only when nothing differs.
#
#   scripts/synth-check.sh [BIN] [N]   # BIN: target/release/bookminer, N: 100000
#
# In scripts/clients.sh, as one more check:
#   check "synth --perturb 0, then Edax's negamax" scripts/synth-check.sh "$bin" "$synth_size"
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/bookminer}")
n=${2:-100000}
clients=$(realpath ../shared)/tools/clients
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$bin" synth --positions "$n" --perturb 0 "$work/synth.dat" --config /dev/null --log-file "$work/log" || exit 1
"$clients/edax-check.sh" "$work/synth.dat" "$work/negamaxed.dat" || exit 1
python3 "$clients/bookdiff.py" edax "$work/synth.dat" "$work/negamaxed.dat"
