#!/usr/bin/env bash
# Do two bookminer binaries write the same bytes? For a change meant to
# leave behaviour alone (a refactoring, a speed-up): every command run by
# both binaries on the same books, and every file they write, their
# standard output and standard error and their exit statuses compared, times
# of day and durations aside.
#
#   scripts/same-output.sh OLD_BIN NEW_BIN [ENGINE]
#
# ENGINE (default: target/release/examples/solver, which `cargo test`
# builds) is the engine `extend` runs. Books: books/, tests/data/books/,
# and ../shared/books (with its bad/ and holdout/ books) when it is there,
# plus synthetic books of both formats that OLD_BIN writes (SYNTH positions,
# default 200000). With NEW_THREADS=N, NEW_BIN runs with `threads = N` in
# its config file (OLD_BIN with none): what the walk on N threads writes
# against the old walk's. Prints the number of outputs compared and each
# that differs; exits 1 if any does.
set -uo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
engine=$(realpath "${3:-target/release/examples/solver}")
synth_size=${SYNTH:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
new_config=/dev/null
if [ -n "${NEW_THREADS:-}" ]; then
  new_config=$work/new-config.toml
  echo "threads = $NEW_THREADS" > "$new_config"
fi

books=(books/*.dat tests/data/books/*.dat tests/data/books/egbk3/*)
if [ -d ../shared/books ]; then
  books+=(../shared/books/*.dat ../shared/books/egbk3/* ../shared/books/bad/*.* \
    ../shared/books/holdout/* ../shared/books/extend/*.dat)
fi
mkdir -p "$work/books"
"$old" --config /dev/null -q synth --positions "$synth_size" --seed 7 "$work/books/synth.dat"
"$old" --config /dev/null -q synth --positions "$((synth_size / 4))" --seed 8 \
  --book-format egbk3 "$work/books/synth.egbk3"
books+=("$work/books/synth.dat" "$work/books/synth.egbk3")

# Durations, rates, engine utilisation, file times and the random names of
# a run's scratch files are the only words allowed to differ.
untimed() {
  sed -E -e 's/[0-9]+(\.[0-9]+)? ?(s|ms|µs)\b/<t>/g' -e 's/[0-9.]+[kMG]? ?(edges|positions|records|searches)\/s/<rate>/g' \
    -e 's/"([a-z_]*seconds)":[0-9.e+-]+/"\1":<t>/g' -e 's/^[0-9T:.-]+Z? +//' \
    -e 's/"modified_ns": ?[0-9]+/"modified_ns":<t>/g' -e 's/(utilisation"?:? *)[0-9.e+-]+%?/\1<t>/g' -e 's#[^ ]*/\.bookminer-(extend|merge)-[^ :]*#<scratch>#g'
}

# run NAME ARGS...: runs ARGS with each binary in a folder of its own (the
# same relative paths for both), keeping what it printed and its status.
n_runs=0
run() {
  local name=$1; shift
  n_runs=$((n_runs + 1))
  for side in old new; do
    local bin=$old config=/dev/null
    [ $side = new ] && bin=$new && config=$new_config
    local d=$work/$side/$name
    mkdir -p "$d"
    (cd "$d" && SOURCE_DATE_EPOCH=0 "$bin" --config "$config" "$@" > stdout 2> stderr; echo $? > status)
    untimed < "$d/stdout" > "$d/stdout.t" && mv "$d/stdout.t" "$d/stdout"
    untimed < "$d/stderr" > "$d/stderr.t" && mv "$d/stderr.t" "$d/stderr"
  done
}

i=0
for book in "${books[@]}"; do
  [ -f "$book" ] || continue
  b=$(realpath "$book")
  # Numbered: books of one name in two folders get folders of their own.
  i=$((i + 1))
  n=$i-$(basename "$book")
  case "$n" in *.dat) ext=dat ;; *) ext=egbk3 ;; esac
  run "$n-verify" verify "$b"
  run "$n-stats" stats "$b"
  run "$n-stats-json" --summary json stats "$b"
  run "$n-mine" mine "$b" --mode all --format kifu,jsonl,obf --out-dir o
  run "$n-mine-walked" mine "$b" --mode all --format kifu,jsonl,obf --out-dir o --orientation as-walked \
    --pass-token PS --unique-lines false --mode1-linkless report --min-gap 2 --bom false
  run "$n-mine-window" mine "$b" --mode all --format jsonl --out-dir o --deviation 2 --max-ply 12 --error 8
  run "$n-mine-start" mine "$b" --mode all --format kifu --out-dir o --start f5d6
  run "$n-inspect" inspect "$b" "" f5 f5d6 f5d6c3 f5f6e6 c4c3 a1
  run "$n-convert" convert "$b" c.dat
  run "$n-convert3" --summary json convert "$b" c.egbk3
  run "$n-cut" cut "$b" c.$ext --deviation 1 --max-ply 8
  run "$n-cut-start" cut "$b" c.$ext --start f5d6 --error 4
  run "$n-fix" fix "$b" f.$ext --out-dir o
  run "$n-fix-walked" fix "$b" f.$ext --out-dir o --orientation as-walked --pass-token PS
  run "$n-diff-fix" diff "$b" "$work/old/$n-fix/f.$ext" --out-dir o
done
run synth-edax synth --positions 30000 --seed 3 s.dat
run synth-egbk3 synth --positions 30000 --seed 3 --book-format egbk3 --perturb 0.1 s.egbk3
extend_book=$(realpath tests/data/books/endgames-extend.dat)
run extend-book-convert3 convert "$extend_book" c.egbk3
start=d3c5e6e3c3f7b5b3c2c1e2f5a3c6g5h5f4g3g6c4e8a4e7f1a2f2e1f6d2f3b2h6d6b1h4b4g1h2g2c7h7a1
run extend extend "$extend_book" x.dat --engine "$engine" --workers 2 --start "$start" --out-dir o
run extend-egbk3 extend "$work/old/extend-book-convert3/c.egbk3" x.egbk3 --engine "$engine" \
  --workers 2 --start "$start" --out-dir o --min-empties 14
# Windows make the candidates' walk its own (each position once, links
# scored by the run's negamax), in every round; grow spends a budget
# (one engine: with more, which answers first decides what is grown).
egbk3_book="$work/old/extend-book-convert3/c.egbk3"
for window in "--deviation 2" "--error 3" "--max-ply 3" "--deviation 4 --error 6 --max-ply 5"; do
  name=$(echo "$window" | tr -d ' -')
  # shellcheck disable=SC2086 # the window is two words or more
  run "extend-$name" extend "$extend_book" x.dat --engine "$engine" --workers 2 --start "$start" --out-dir o $window
  # shellcheck disable=SC2086
  run "extend-egbk3-$name" extend "$egbk3_book" x.egbk3 --engine "$engine" --workers 2 --start "$start" \
    --out-dir o --min-empties 14 $window
done
run extend-max extend "$extend_book" x.dat --engine "$engine" --workers 2 --start "$start" --out-dir o --max-positions 7
run grow grow "$extend_book" x.dat --engine "$engine" --workers 1 --start "$start" --out-dir o --max-positions 20
run grow-egbk3 grow "$egbk3_book" x.egbk3 --engine "$engine" --workers 1 --start "$start" --out-dir o \
  --max-positions 20 --min-empties 14

# Every file either side wrote, compared byte for byte.
n_files=0
n_differ=0
while IFS= read -r file; do
  n_files=$((n_files + 1))
  # extend's journal notes how long each search took, and its engines
  # answer in any order; a manifest notes the times of the files it names.
  if ! cmp -s "$work/old/$file" "$work/new/$file" && { [[ $file != *extend.jsonl && $file != */manifest.json ]] ||
    ! cmp -s <(untimed < "$work/old/$file" | sort) <(untimed < "$work/new/$file" | sort); }; then
    n_differ=$((n_differ + 1))
    echo "differs: $file"
    diff <(head -c 4000 "$work/old/$file" 2>/dev/null) <(head -c 4000 "$work/new/$file" 2>/dev/null) | head -6
  fi
done < <( (cd "$work/old" && find . -type f; cd "$work/new" && find . -type f) | sort -u)
# How the commands ended (the same for both, or a status file differs):
# bad books and starts that a book lacks exit with 2, and so would a
# command given bad arguments.
echo "exit statuses: $(cat "$work"/new/*/status | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')"
echo "$n_runs commands, $n_files outputs compared, $n_differ differ"
[ "$n_differ" -eq 0 ]
