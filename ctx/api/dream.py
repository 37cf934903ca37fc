"""The dream API: Dream Mode, link review, guard flags, digests, the ego graph."""

from __future__ import annotations

from ctx.api.routing import READ, Op, endpoint
from dream import operations as ops

mode = endpoint(
    get=Op(ops.mode_get, ops.NoInput, bucket=READ), post=Op(ops.mode_set, ops.ModeInput)
)
stats = endpoint(get=Op(ops.stats, ops.ScopesParam, bucket=READ))
review = endpoint(get=Op(ops.review, ops.ReviewInput, bucket=READ))
resolve = endpoint(post=Op(ops.link_resolve, ops.LinkResolveInput))
revert = endpoint(post=Op(ops.links_revert, ops.RevertInput))
guard = endpoint(get=Op(ops.flags_list, ops.FlagsInput, bucket=READ))
guard_stats = endpoint(get=Op(ops.flags_stats, ops.ScopesParam, bucket=READ))
guard_resolve = endpoint(post=Op(ops.flag_resolve, ops.FlagResolveInput))
digest = endpoint(post=Op(ops.digest_build, ops.DigestInput))
ego_graph = endpoint(get=Op(ops.ego_graph, ops.EgoInput, bucket=READ))
