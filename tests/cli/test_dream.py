"""`ctx dream stats|review|resolve|enable|disable|throttle`."""

from __future__ import annotations

from typing import Any

import pytest

from ctx import services as ctx_services
from dream import services
from dream.models import Link, LinkOrigin
from dream.services import LinkInput, link_upsert
from tests.cli.conftest import Cli
from tests.conftest import Cast


def _weak_dream_link(cast: Cast) -> Link:
    a = cast.owner.store(category="infra", title="Deploys", content="We deploy on Fridays.")
    b = cast.owner.store(category="infra", title="Releases", content="Releases go out weekly.")
    return link_upsert(LinkInput(a["id"], b["id"], "causal", 0.3, origin=LinkOrigin.DREAM))


def test_it_reports_mode_queue_and_links(cli: Cli, live_cast: Cast) -> None:
    _weak_dream_link(live_cast)
    run = cli("dream", "stats")
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert body["mode"] == "on" and body["links"]["classes"] == {"causal": 1}
    assert {"pickable_now", "never_dreamed", "levels"} <= set(body["queue"])
    screen = cli.tty("dream", "stats").stdout
    assert "mode" in screen and "causal=1" in screen


def test_it_lists_links_to_review_and_confirms_one(cli: Cli, live_cast: Cast) -> None:
    link = _weak_dream_link(live_cast)
    listed = cli("dream", "review", "--class", "causal").json()
    assert [x["id"] for x in listed["links"]] == [link.pk]
    assert "Deploys" in cli.tty("dream", "review").stdout
    run = cli("dream", "resolve", str(link.pk), "confirm")
    assert run.returncode == 0, run.stderr
    assert run.json()["action"] == "confirmed"
    link.refresh_from_db()
    assert link.pinned and cli("dream", "review").json()["links"] == []


def test_it_gives_the_same_not_found_for_a_foreign_link(cli: Cli, live_cast: Cast) -> None:
    a = live_cast.outsider.store(title="theirs a", content="one")
    b = live_cast.outsider.store(title="theirs b", content="two")
    foreign = link_upsert(LinkInput(a["id"], b["id"], "causal", 0.3, origin=LinkOrigin.DREAM))
    runs = [
        cli("dream", "resolve", str(foreign.pk), "delete"),
        cli("dream", "resolve", "999999", "delete"),
    ]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr and "(not_found)" in runs[0].stderr
    assert Link.objects.filter(pk=foreign.pk).exists()


@pytest.mark.parametrize(
    ("action", "mode"), [("disable", "off"), ("throttle", "throttled"), ("enable", "on")]
)
def test_it_lets_a_server_admin_switch_the_mode(
    cli: Cli, live_cast: Cast, action: str, mode: str
) -> None:
    _, admin_key = ctx_services.key_create(
        tenant=live_cast.acme, name="root", home="acme:main", is_admin=True
    )
    run = cli("dream", action, CTX_KEY=admin_key)
    assert run.returncode == 0, run.stderr
    assert run.json() == {"success": True, "mode": mode} and services.mode_get() == mode


def test_it_shows_the_servers_refusal_to_a_tenant_owner(cli: Cli, live_cast: Cast) -> None:
    run = cli("dream", "disable")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith("error: ") and run.stderr.rstrip().endswith("(forbidden)")
    assert services.mode_get() == "on"


@pytest.mark.parametrize(
    "args",
    [
        ("dream",),
        ("dream", "sleep"),
        ("dream", "resolve", "1", "maybe"),
        ("dream", "review", "--limit", "0"),
    ],
)
def test_it_exits_2_on_bad_arguments(offline_cli: Cli, args: Any) -> None:
    assert offline_cli(*args).returncode == 2


def test_it_reverts_the_links_a_cycle_replaced(cli: Cli, live_cast: Cast) -> None:
    from django.utils import timezone

    from dream import links as dream_links

    link = _weak_dream_link(live_cast)
    dream_links.keep_sets([str(link.source_id)], now=timezone.now())  # as a cycle would
    link.delete()  # what that cycle then replaced
    run = cli.tty("dream", "revert", str(link.source_id))
    assert run.returncode == 0, run.stderr
    assert "1 restored, 0 removed" in run.stdout
    assert Link.objects.filter(origin=LinkOrigin.DREAM).count() == 1
    again = cli("dream", "revert", str(link.source_id))
    assert again.returncode == 1 and "(not_found)" in again.stderr
