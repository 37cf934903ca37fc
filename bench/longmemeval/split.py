"""The fixed development / held-out split of LongMemEval_S (../shared/notes/measuring.md).

Every weight, pool size, threshold or prompt is chosen on the development half; figures are
reported on the held-out half next to the full set. The split is committed (split.json) and
this script only re-derives it: within each question type, questions ordered by the SHA-256 of
their id, the first half (rounded up) is development. Abstention (`_abs`) questions, which the
retrieval metrics skip but the confidence verdict is fitted on, are split the same way.

    .venv/bin/python -m bench.longmemeval.split            # check split.json
    .venv/bin/python -m bench.longmemeval.split --write    # write it again
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

from bench.longmemeval.data import RawEntry, is_scorable, load_entries

SPLIT_FILE = Path(__file__).with_name("split.json")


def _halves(ids_by_type: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    dev: list[str] = []
    held: list[str] = []
    for qtype in sorted(ids_by_type):
        ranked = sorted(ids_by_type[qtype], key=lambda q: hashlib.sha256(q.encode()).hexdigest())
        cut = (len(ranked) + 1) // 2
        dev += ranked[:cut]
        held += ranked[cut:]
    return sorted(dev), sorted(held)


def derive(entries: list[RawEntry]) -> dict[str, list[str]]:
    scorable: dict[str, list[str]] = defaultdict(list)
    abstention: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        qid, qtype = entry["question_id"], entry["question_type"]
        if qid.endswith("_abs"):
            abstention[qtype].append(qid)
        elif is_scorable(entry):
            scorable[qtype].append(qid)
    dev, held = _halves(scorable)
    abs_dev, abs_held = _halves(abstention)
    return {"dev": dev, "heldout": held, "abs_dev": abs_dev, "abs_heldout": abs_held}


def load_split() -> dict[str, frozenset[str]]:
    raw = json.loads(SPLIT_FILE.read_text())
    return {name: frozenset(ids) for name, ids in raw.items() if isinstance(ids, list)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write split.json")
    args = parser.parse_args(argv)
    split = derive(load_entries("s"))
    counts = {name: len(ids) for name, ids in split.items()}
    if args.write:
        SPLIT_FILE.write_text(json.dumps({"counts": counts, **split}, indent=1) + "\n")
        print(json.dumps(counts))
        return 0
    committed = json.loads(SPLIT_FILE.read_text())
    same = all(committed[name] == ids for name, ids in split.items())
    print(json.dumps({"matches_committed": same, **counts}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
