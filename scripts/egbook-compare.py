#!/usr/bin/env python3
"""egbk3 books A and B (one written by egbook, one by bookminer): the records both hold are equal field by field;
(a leaf move may differ, its score the same); those only one holds are as many, with the same disc counts, values, levels and leaf values and levels (lines that
differ only by an engine's choice between moves of equal score); prints the first divergences."""
import struct, sys
from collections import Counter
def recs(p):
    d = open(p, 'rb').read(); n = struct.unpack('<i', d[10:14])[0]; out = {}
    for i in range(n):
        r = d[14 + 25 * i:39 + 25 * i]; out[struct.unpack('<QQ', r[:16])] = r[16:]
    return out
def key(k, v):  # disc count, value, level, leaf value, leaf level (not n_lines, not the leaf move)
    return (bin(k[0] | k[1]).count('1'), v[0], v[1], v[6], v[8])
a, b = recs(sys.argv[1]), recs(sys.argv[2])
init = (0x0000000810000000, 0x0000001008000000)
for x in (a, b): x.pop(init, None)
both = [k for k in a if k in b]
# The fields Egaroucid's functions set (not n_lines); a leaf move may differ between moves of equal score.
differ = [k for k in both if a[k][:2] + a[k][6:7] + a[k][8:] != b[k][:2] + b[k][6:7] + b[k][8:]]
ties = [k for k in both if k not in differ and a[k][7] != b[k][7]]
oa = Counter(key(k, a[k]) for k in a if k not in b); ob = Counter(key(k, b[k]) for k in b if k not in a)
print(f"{len(a)} vs {len(b)}: {len(both)} in both ({len(differ)} differ, {len(ties)} leaf moves of equal score), {sum(oa.values())} only in the first, "
      f"{sum(ob.values())} only in the second, {'the same' if oa == ob else 'NOT the same'} discs/values/levels")
sys.exit(0 if len(a) == len(b) and not differ and oa == ob else 1)
