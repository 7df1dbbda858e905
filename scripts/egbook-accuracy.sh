#!/usr/bin/env bash
# egbook-accuracy.sh BOOKMINER EGBOOK BOOK LINE [N]: the accuracy grade `bookminer inspect --summary json` gives
# each move of the positions LINE and the first N (default 40) lines below it (breadth first over links) against
# `egbook accuracy` of the same lines (Egaroucid's Book_accuracy). Prints "N moves, 0 differ" or each difference.
set -euo pipefail
bm=$1 egbook=$2 book=$3 line=$4 n=${5:-40}
python3 - "$bm" "$egbook" "$book" "$line" "$n" <<'PY'
import json, subprocess, sys
bm, egbook, book, line, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def moves(l):
    out = subprocess.run([bm, "inspect", book, l or "0x0000000810000000 0x0000001008000000", "--summary", "json", "-q"], capture_output=True, text=True)
    reports = json.loads(out.stdout)["reports"] if out.stdout else []
    return reports[0].get("links", []) if reports else []
queue, ours, done = [line], {}, 0
while queue and done < n:
    l = queue.pop(0); done += 1
    for m in moves(l):
        child = l + m["move"].lower()
        ours[child] = m["accuracy"] or "-"
        queue.append(child)
lines = sorted(ours)
theirs = {}
for i in range(0, len(lines), 200):
    out = subprocess.run([egbook, "accuracy", book] + [x or "-" for x in lines[i:i + 200]], capture_output=True, text=True)
    for row in out.stdout.split("\n"):
        if row.strip():
            k, g = row.split(); theirs[k] = g
differ = [(k, ours[k], theirs.get(k)) for k in lines if ours[k] != theirs.get(k)]
for d in differ[:20]: print("differ:", *d)
print(f"{len(lines)} moves graded, {len(differ)} differ")
sys.exit(1 if differ else 0)
PY
