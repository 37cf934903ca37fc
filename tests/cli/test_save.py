from __future__ import annotations

import shlex

from ctx.models import Block
from tests.cli.conftest import Cli


def test_it_stores_content_given_as_an_argument(cli: Cli) -> None:
    run = cli("save", "infra", "Docker", "Use compose v2.")
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert body["action"] == "created" and body["scope"] == "acme:main"
    assert Block.objects.get(pk=body["id"]).content == "Use compose v2."


def test_it_reads_content_from_stdin_with_a_dash_or_nothing(cli: Cli) -> None:
    dash = cli("save", "infra", "A", "-", stdin="from stdin\n").json()
    bare = cli("save", "infra", "B", stdin="also stdin\n").json()
    assert Block.objects.get(pk=dash["id"]).content.strip() == "from stdin"
    assert Block.objects.get(pk=bare["id"]).content.strip() == "also stdin"


def test_it_sends_scope_tags_type_and_metadata(cli: Cli) -> None:
    run = cli(
        "save",
        "--scope",
        "acme:team",
        "--tag",
        "Ops,db",
        "--tag",
        "x",
        "--type",
        "decision",
        "--meta",
        "source=chat",
        "--meta",
        "ticket=42",
        "infra",
        "Pick",
        "We pick Postgres.",
    )
    assert run.returncode == 0, run.stderr
    block = Block.objects.select_related("scope").get(pk=run.json()["id"])
    assert block.scope.name == "acme:team" and block.type == "decision"
    assert block.tags == ["ops", "db", "x"]
    assert block.metadata == {"source": "chat", "ticket": "42"}


def test_it_reports_updates_and_noops(cli: Cli) -> None:
    assert cli("save", "c", "t", "one").json()["action"] == "created"
    assert cli("save", "c", "t", "one").json()["action"] == "noop"
    assert cli("save", "c", "t", "two").json()["action"] == "updated"


def test_it_prints_a_line_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("save", "c", "t", "text")
    assert run.returncode == 0 and run.stdout.startswith("created ") and "acme:main" in run.stdout


def test_it_refuses_empty_content(cli: Cli) -> None:
    run = cli("save", "c", "t", stdin="   \n")
    assert run.returncode == 2 and "content is empty" in run.stderr
    assert Block.objects.count() == 0


def test_it_shows_the_servers_validation_message(cli: Cli) -> None:
    run = cli("save", "--type", "poem", "c", "t", "text")
    assert run.returncode == 1
    assert (
        run.stderr.startswith("error: 'type' must be one of") and "(validation_error)" in run.stderr
    )


def test_it_cannot_write_where_the_key_may_not(cli: Cli) -> None:
    run = cli("save", "--scope", "globex:main", "c", "t", "x")
    assert run.returncode == 1 and Block.objects.count() == 0


def test_it_takes_the_seeds_form_with_a_dash_before_the_content(cli: Cli) -> None:
    # `ctx save $PROMPT` of a slash command: the shell splits the prompt into words
    run = cli("save", *shlex.split("infra Docker - We run compose v2 in prod."))
    assert run.returncode == 0, run.stderr
    block = Block.objects.get(pk=run.json()["id"])
    assert (block.category, block.title) == ("infra", "Docker")
    assert block.content == "We run compose v2 in prod."


def test_it_takes_a_title_of_several_words_before_the_dash(cli: Cli) -> None:
    run = cli("save", *shlex.split("decisions Message queue - We use Redis streams."))
    block = Block.objects.get(pk=run.json()["id"])
    assert (block.title, block.content) == ("Message queue", "We use Redis streams.")


def test_it_joins_the_words_after_the_title_without_a_dash(cli: Cli) -> None:
    run = cli("save", "infra", "Docker", "We", "run", "compose.")
    assert Block.objects.get(pk=run.json()["id"]).content == "We run compose."


def test_it_reads_stdin_after_a_trailing_dash(cli: Cli) -> None:
    run = cli("save", "infra", "Long", "title", "-", stdin="piped text\n")
    block = Block.objects.get(pk=run.json()["id"])
    assert block.title == "Long title" and block.content.strip() == "piped text"


def test_it_needs_a_category_and_a_title(cli: Cli) -> None:
    run = cli("save", "infra")
    assert run.returncode == 2 and "category and a title" in run.stderr
