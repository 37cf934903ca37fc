"""BM25 document frequencies of large scopes, counted in the background.

The full-text arms weigh each query term by its document frequency in the caller's scopes.
Counted per query (the GIN index, capped), that was 4-14 ms of a 20 ms English arm in a
92k-block scope. A scope of at least CTX_FTS_STATS_FROM live blocks therefore keeps the df of
every lexeme found in MIN_DF blocks or more (PostgreSQL's ts_stat: 0.4 s per language at 92k
blocks), counted again once its size drifted by DRIFT or the counts are MAX_AGE old. Queries
read these; a lexeme not stored (rare, so cheap to count) or a phrase is still counted live.

Between two counts the figures are approximate, as in any search engine's segment
statistics: the ranking weights drift by no more than the scope did.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from ctx import knobs
from ctx.models import Scope
from retrieval.models import TermStat
from retrieval.sql import COLUMNS

MIN_DF = 20
DRIFT = 0.10
MAX_AGE = timedelta(hours=24)

_SIZES = """SELECT b.scope_id, count(*) FROM ctx_block b WHERE NOT b.archived
    GROUP BY b.scope_id HAVING count(*) >= %s"""
_INSERT = """INSERT INTO ctx_termstat (scope_id, config, lexeme, df)
    SELECT %s, %s, word, ndoc FROM ts_stat(%s) WHERE ndoc >= %s"""


# pg_advisory_xact_lock's first key: the scope's counting (the second key is the scope id).
_LOCK_SPACE = 0x7465726D  # "term"


def refresh(scope_id: int, blocks: int) -> bool:
    """Count the scope's lexemes again (in one transaction: a query sees old or new counts).
    False when another transaction is counting the scope right now: two counts at once each
    deleted the old rows and inserted new ones, and the later commit failed on the unique
    lexeme (seen at 300k blocks, bench/scale.py against the scheduled task)."""
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_LOCK_SPACE, scope_id])
            if not cur.fetchone()[0]:
                return False
        TermStat.objects.filter(scope_id=scope_id).delete()
        with connection.cursor() as cur:
            for config, column in COLUMNS.items():
                # ts_stat takes the text of a query; the scope id is an integer from our table.
                documents = (
                    f"SELECT {column} FROM ctx_block WHERE scope_id = {int(scope_id)}"  # noqa: S608
                    " AND NOT archived"
                )
                cur.execute(_INSERT, [scope_id, config, documents, MIN_DF])
        Scope.objects.filter(id=scope_id).update(
            term_stats_at=timezone.now(), term_stats_blocks=blocks
        )
    return True


def _due(scope: Scope, blocks: int) -> bool:
    if scope.term_stats_at is None or not scope.term_stats_blocks:
        return True
    drifted = abs(blocks - scope.term_stats_blocks) > DRIFT * scope.term_stats_blocks
    return drifted or timezone.now() - scope.term_stats_at > MAX_AGE


def refresh_due() -> list[int]:
    """Count the scopes that need it; forget the counts of scopes now below the threshold
    (their queries count live again). Returns the ids of the scopes counted."""
    with connection.cursor() as cur:
        cur.execute(_SIZES, [knobs.value("CTX_FTS_STATS_FROM")])
        sizes = {int(scope_id): int(n) for scope_id, n in cur.fetchall()}
    counted = Scope.objects.filter(term_stats_at__isnull=False).exclude(id__in=sizes)
    for scope in counted:
        with transaction.atomic():
            TermStat.objects.filter(scope_id=scope.id).delete()
            Scope.objects.filter(id=scope.id).update(term_stats_at=None, term_stats_blocks=None)
    done = []
    for scope in Scope.objects.filter(id__in=sizes).order_by("id"):
        if _due(scope, sizes[scope.id]) and refresh(scope.id, sizes[scope.id]):
            done.append(scope.id)
    return done


def counted(scope_ids: list[int]) -> tuple[int, ...]:
    """Which of the scopes have stored counts (a query counts the others' matches live)."""
    rows = Scope.objects.filter(id__in=scope_ids, term_stats_at__isnull=False)
    return tuple(sorted(rows.values_list("id", flat=True)))
