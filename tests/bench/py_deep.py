# A Python program whose allocations happen deep in the interpreter's C
# stack: a recursion through a C builtin (map; Python 3.11 runs plain
# Python-to-Python calls without C recursion), 30 levels, each several C
# frames, building small dicts and lists at every level. Used to measure what heaprec's
# stack depth (--depth) costs: most of its stacks are deeper than 64 frames.
#   PYTHONMALLOC=malloc python3 tests/bench/py_deep.py [ROUNDS]
import sys


def down(n, acc):
    here = [{"k": i, "v": str(i)} for i in range(4)]
    if n == 0:
        return here
    return list(map(lambda m: down(m, acc), [n - 1]))[0] + here + acc


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    total = 0
    for r in range(rounds):
        total += len(down(30, [r]))
    print(total)


main()
