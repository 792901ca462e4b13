# Benchmark workload (c): a real program, CPython, doing dict- and list-heavy
# work. Run with PYTHONMALLOC=malloc so that every object allocation goes
# through malloc (and so through heaprec's and heaptrack's hooks) instead of
# CPython's own small-object arena.
#
# usage: PYTHONMALLOC=malloc /usr/bin/python3 py_dicts.py [ROUNDS]
import sys


def words(n, seed):
    return ["w%d-%d" % ((i * 2654435761 + seed) % 100003, i % 17) for i in range(n)]


def index(ws):
    by_len = {}
    counts = {}
    for w in ws:
        counts[w] = counts.get(w, 0) + 1
        by_len.setdefault(len(w), []).append(w)
    return counts, by_len


def one_round(seed):
    ws = words(60000, seed)
    counts, by_len = index(ws)
    pairs = sorted(((c, w) for w, c in counts.items()), reverse=True)[:1000]
    nested = {k: {w: (len(w), w.upper()) for w in v[:2000]} for k, v in by_len.items()}
    return len(pairs) + sum(len(v) for v in nested.values()) + len(counts)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    total = 0
    for r in range(rounds):
        total += one_round(r)
    print("py_dicts: %d rounds, checksum %d" % (rounds, total))


main()
