# The Python workload of tools/bench_allocators.sh, as a user runs Python
# (its own small-object allocator on, unlike py_dicts.py): builds records
# as dicts, dumps them to JSON, parses them back and aggregates.
#   python3 tests/bench/py_json.py [ROUNDS]
import json
import sys


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    total = 0
    for r in range(rounds):
        rows = [{"id": i, "name": "item%d" % i, "tags": ["t%d" % (i % 7), "r%d" % r],
                 "price": i * 0.25} for i in range(40000)]
        text = json.dumps(rows)
        back = json.loads(text)
        by_tag = {}
        for row in back:
            by_tag.setdefault(row["tags"][0], []).append(row["price"])
        total += sum(len(v) for v in by_tag.values())
    print(total)


main()
