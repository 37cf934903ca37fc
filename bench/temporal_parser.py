"""Throughput of the temporal parser on a fixed mix of 200 queries, half without time words.

Run from the repository root: `python bench/temporal_parser.py [--rounds N]`. Prints one
JSON object (per-query mean and p95 in microseconds, queries per second, the machine) and
then a one-line summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrieval.temporal import parse

TARGET_MEAN_US = 200.0
NOW = datetime(2025, 3, 12, 14, 0, tzinfo=ZoneInfo("Europe/Berlin"))

TEMPORAL_EN = (
    "last week",
    "yesterday",
    "3 days ago",
    "since March",
    "until Friday",
    "next Monday through Thursday",
    "over Christmas",
    "every Tuesday",
    "on Tuesday",
    "in March 2025",
    "Q3 2024",
    "recently",
    "this morning",
    "last weekend",
    "end of the month",
    "beginning of the week",
    "two weeks ago",
    "Monday or Tuesday",
    "the day before yesterday",
    "2025-03-01 to 2025-03-10",
    "Easter 2024",
    "next month",
    "in 2023",
    "yesterdy",
    "a while ago",
)
TEMPORAL_DE = (
    "letzte Woche",
    "gestern",
    "vor 3 Tagen",
    "seit März",
    "bis Freitag",
    "letzten Montag bis Mittwoch",
    "an Weihnachten",
    "immer dienstags",
    "am Dienstag",
    "Ende März 2025",
    "im 3. Quartal 2024",
    "kürzlich",
    "heute Morgen",
    "am Wochenende",
    "zum Monatsende",
    "Anfang der Woche",
    "vor zwei Wochen",
    "gestern und heute",
    "vorgestern",
    "übernächste Woche",
    "Pfingsten",
    "nächsten Monat",
    "morgens",
    "gesten",
    "14.03.2025",
)
TOPICS_EN = (
    "the database migration",
    "the pricing page",
    "API key rotation",
    "the search ranking",
    "tenant isolation",
    "the onboarding flow",
    "the Celery worker pool",
    "embedding dimensions",
    "the western region outage",
    "the Morgan Stanley report",
    "rate limits",
    "the deploy pipeline",
    "our hiring plan",
    "the logo redesign",
    "unit test flakiness",
    "the main branch",
    "error envelopes",
    "the OpenAPI schema",
    "vector index tuning",
    "customer feedback",
    "the quarterly roadmap",
    "password resets",
    "the billing bug",
    "docs for the CLI",
    "the March madness bracket",
)
TOPICS_DE = (
    "die Datenbankmigration",
    "die Preisseite",
    "den API-Schlüssel",
    "das Suchranking",
    "die Mandantentrennung",
    "das Onboarding",
    "den Worker-Pool",
    "die Einbettungen",
    "den Ausfall im Rechenzentrum",
    "den Bericht von Morgan Stanley",
    "die Ratenbegrenzung",
    "die Deploy-Pipeline",
    "den Einstellungsplan",
    "das neue Logo",
    "instabile Tests",
    "den Hauptzweig",
    "die Fehlermeldungen",
    "das Schema",
    "den Vektorindex",
    "Kundenfeedback",
    "die Roadmap",
    "Passwort-Resets",
    "den Abrechnungsfehler",
    "die Doku der CLI",
    "das Westernfestival",
)


def queries() -> list[str]:
    """Return the 200 benchmark queries: 100 with a time phrase, 100 without."""
    timed = [f"what did we decide {phrase}" for phrase in TEMPORAL_EN]
    timed += [
        f"notes on {topic} {phrase}" for topic, phrase in zip(TOPICS_EN, TEMPORAL_EN, strict=True)
    ]
    timed += [f"was haben wir {phrase} besprochen" for phrase in TEMPORAL_DE]
    timed += [f"Notizen zu {t} {phrase}" for t, phrase in zip(TOPICS_DE, TEMPORAL_DE, strict=True)]
    plain = [f"what do we know about {topic}" for topic in TOPICS_EN]
    plain += [f"how do I fix {topic} in production" for topic in TOPICS_EN]
    plain += [f"was wissen wir über {topic}" for topic in TOPICS_DE]
    plain += [f"wie behebe ich {topic} im Betrieb" for topic in TOPICS_DE]
    return timed + plain


def measure(batch: list[str], rounds: int) -> tuple[list[float], float]:
    """Return every call's duration in microseconds and the wall time of all rounds."""
    for query in batch:
        parse(query, NOW)  # warm-up: caches, lazily built structures
    durations: list[float] = []
    clock = time.perf_counter_ns
    started = time.perf_counter()
    for _ in range(rounds):
        for query in batch:
            before = clock()
            parse(query, NOW)
            durations.append((clock() - before) / 1000)
    return durations, time.perf_counter() - started


def summary(durations: list[float]) -> dict[str, float]:
    ordered = sorted(durations)
    return {
        "mean_us": round(statistics.fmean(ordered), 2),
        "p50_us": round(ordered[len(ordered) // 2], 2),
        "p95_us": round(ordered[int(len(ordered) * 0.95)], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    batch = queries()
    durations, wall = measure(batch, args.rounds)
    half = len(batch) // 2
    timed = [d for i, d in enumerate(durations) if i % len(batch) < half]
    plain = [d for i, d in enumerate(durations) if i % len(batch) >= half]
    report = {
        "queries": len(batch),
        "rounds": args.rounds,
        "calls": len(durations),
        **summary(durations),
        "queries_per_s": round(len(durations) / wall),
        "temporal": summary(timed),
        "plain": summary(plain),
        "target_mean_us": TARGET_MEAN_US,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "machine": platform.machine(),
            "processor": platform.processor(),
            "cpu_count": os.cpu_count(),
            "load_avg_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        },
    }
    print(json.dumps(report, indent=2))
    verdict = "within" if report["mean_us"] <= TARGET_MEAN_US else "ABOVE"
    print(
        f"temporal parser: mean {report['mean_us']} us, p95 {report['p95_us']} us, "
        f"{report['queries_per_s']} queries/s over {len(durations)} calls "
        f"({verdict} the {TARGET_MEAN_US:.0f} us target, {os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    main()
