"""Output schemas of the tools: the operations' wire payloads (ctx/ops/payloads.py), or the
error envelope.

Every result carries `success`; a failed call (isError) carries `error` with a stable code from
ctx.errors.ErrorCode instead of the other fields, so one schema per tool describes both.
typing_extensions.TypedDict because pydantic needs it below Python 3.12.
"""

from __future__ import annotations

from typing import Any, NotRequired, Required, get_type_hints

from typing_extensions import TypedDict

from blobs import operations as blob_ops
from briefing import payloads as bp
from ctx.ops import history as hp
from ctx.ops import payloads as p
from ingest import payloads as ip
from memory import payloads as memory_payloads
from profiles import payloads as profile_payloads
from refindex import payloads as index_payloads


class ErrorBody(TypedDict):
    code: str
    message: str
    details: NotRequired[dict[str, Any]]


def output(name: str, payload: type) -> type:
    """The tool's output schema: the envelope and the operation's payload (ctx/ops), every
    payload key optional (a failed call carries only `success` and `error`)."""
    fields = {**get_type_hints(payload), "success": Required[bool], "error": ErrorBody}
    return TypedDict(name, fields, total=False)  # type: ignore[operator]


QueryOutput = output("QueryOutput", p.QueryPayload)
StoreOutput = output("StoreOutput", p.StorePayload)
SearchOutput = output("SearchOutput", p.SearchPayload)
BlockOutput = output("BlockOutput", p.BlockPayload)
RecentOutput = output("RecentOutput", p.ListPayload)
UpdateOutput = output("UpdateOutput", p.UpdatePayload)
DeleteOutput = output("DeleteOutput", p.DeletePayload)
CategoriesOutput = output("CategoriesOutput", p.CategoriesPayload)
StatsOutput = output("StatsOutput", p.StatsPayload)
PreferencesOutput = output("PreferencesOutput", profile_payloads.PreferencesPayload)
ProfilesOutput = output("ProfilesOutput", profile_payloads.ProfilesPayload)
SignalOutput = output("SignalOutput", profile_payloads.SignalPayload)
SessionsOutput = output("SessionsOutput", ip.SessionListPayload)
SessionDetailOutput = output("SessionDetailOutput", ip.SessionDetailPayload)
SessionSearchOutput = output("SessionSearchOutput", ip.SearchPayload)
KnowledgeOutput = output("KnowledgeOutput", ip.KnowledgePayload)
HistoryOutput = output("HistoryOutput", hp.HistoryPayload)
ContextOutput = output("ContextOutput", bp.ContextPayload)
ChangesOutput = output("ChangesOutput", bp.ChangesPayload)
FactsOutput = output("FactsOutput", memory_payloads.FactListPayload)
IndexOutput = output("IndexOutput", index_payloads.IndexPayload)
IndexSearchOutput = output("IndexSearchOutput", index_payloads.SnippetSearchPayload)
BlobSearchOutput = output("BlobSearchOutput", blob_ops.SearchPayload)
BlobGetOutput = output("BlobGetOutput", blob_ops.GetPayload)
