"""The sandbox's pure parts with literal data: command splitting, rule matching, the
environment scrub, head and tail, snippet focus, the address check, the stats formula."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

import pytest

from ctx_cli.sandbox import netguard, policy, shrink, stats


def test_it_splits_a_script_into_simple_commands() -> None:
    script = "FOO=1 sudo rm -rf /tmp/x && echo ok | tee log; (cd a && make) $(whoami)\n# note"
    assert policy.shell_commands(script) == [
        "rm -rf /tmp/x", "echo ok", "tee log", "cd a", "make", "whoami",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("pattern", "command", "expected"),
    [
        ("git push:*", "git push origin main", True),
        ("git push:*", "git push", True),
        ("git push:*", "git pushx", False),
        ("rm -rf *", "rm -rf /", True),
        ("rm -rf *", "rm -r x", False),
        ("npm test", "npm test", True),
        ("npm test", "npm test --watch", False),
        ("", "anything at all", True),
    ],
)
def test_it_matches_claude_code_bash_rules(pattern: str, command: str, expected: bool) -> None:
    assert policy.matches(pattern, command) is expected


def test_it_finds_shell_outs_in_other_languages() -> None:
    code = 'import os, subprocess\nos.system("rm -rf /x")\nsubprocess.run(["git", "push"])\n'
    assert policy.embedded_commands(code) == ["rm -rf /x", "git"]
    assert policy.embedded_commands("require('child_process').execSync(`curl x`)") == ["curl x"]


def test_it_scrubs_credentials_from_the_environment() -> None:
    env = {
        "PATH": "/bin", "LANG": "C", "TERM": "xterm", "HOME": "/h", "CTX_BASE_URL": "http://x",
        "OPENAI_API_KEY": "sk", "GH_TOKEN": "t", "AWS_REGION": "eu", "DB_PASSWORD": "p",
        "PROXY": "http://user:pw@proxy:3128", "COPY": "has ctx_live_secret_1 inside",
    }  # fmt: skip
    kept = policy.scrub_env(env, known_secrets=["ctx_live_secret_1"])
    assert kept == {"PATH": "/bin", "LANG": "C", "TERM": "xterm", "HOME": "/h"}


def test_it_reads_deny_rules_from_every_settings_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"permissions": {"deny": ["Bash(rm:*)", "Read(x)"]}}')
    (tmp_path / "b.json").write_text("not json")
    rules = policy.load_rules([tmp_path / "a.json", tmp_path / "b.json", tmp_path / "none"])
    assert rules == [policy.Rule("rm:*", str(tmp_path / "a.json"))]
    verdict = policy.check("echo a; rm x", "shell", rules)
    assert verdict is not None and verdict.status == "denied" and verdict.command == "rm x"


def test_it_anchors_read_rules_like_claude_code(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    rules = '["Read(./.env)", "Read(~/.aws/**)", "Read(//etc/shadow)", "Read(/build/*.key)"]'
    settings.write_text(f'{{"permissions": {{"deny": {rules}}}}}')
    found = policy.load_path_rules([settings], project, home)
    assert [r.pattern for r in found] == [
        f"{project}/.env", f"{home}/.aws/**", "/etc/shadow", f"{project}/build/*.key",
    ]  # fmt: skip
    assert policy.path_denied(home / ".aws" / "credentials", found) is found[1]
    assert policy.path_denied(project / "build" / "a.key", found) is found[3]
    assert policy.path_denied(project / "build" / "sub" / "a.key", found) is None
    assert policy.path_denied(project / ".env.example", found) is None


def test_it_keeps_head_and_tail_at_line_breaks() -> None:
    text = "".join(f"line {i}\n" for i in range(2000))
    cut = shrink.head_tail(text, 100, 100)
    head, _, tail = cut.partition("\n… [")
    assert head.startswith("line 0\nline 1\n") and head.endswith("\n")
    assert tail.endswith("line 1999\n") and tail.split("] …\n")[1].startswith("line ")
    assert "lines cut; give an intent to search the whole output" in cut
    assert shrink.head_tail("short", 100, 100) == "short"


def test_it_focuses_a_snippet_on_its_marked_lines() -> None:
    snippet = "INFO a\nERROR «refused» by db-7\nINFO b\n" + "x" * 500 + " «late» " + "y" * 500
    focused = shrink.focus(snippet).splitlines()
    assert focused[0] == "ERROR «refused» by db-7"
    assert focused[1].startswith("…x") and "«late»" in focused[1] and focused[1].endswith("…")
    assert len(focused[1]) <= shrink.LINE_CHARS + 2


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("cat .env", [".env"]),
        ("cat<.env 2>/dev/null", [".env", "2", "/dev/null"]),
        ("grep --file=./secrets/a -n x", ["./secrets/a", "x"]),
        ("./secrets/run.sh 'my file'", ["./secrets/run.sh", "my file"]),
        ("head -n 3 'unbalanced", ["3", "'unbalanced"]),
    ],
)
def test_it_finds_the_words_of_a_command_that_may_name_files(
    command: str, words: list[str]
) -> None:
    assert policy.command_words(command) == words


def test_it_denies_a_command_naming_a_path_a_read_rule_covers(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / "secrets").mkdir(parents=True)
    (project / "secrets" / "prod.pem").write_text("key")
    settings = tmp_path / "settings.json"
    rules = ["Read(./.env)", "Read(./secrets/**)", "Read(~/.aws/**)"]
    settings.write_text(json.dumps({"permissions": {"deny": rules}}))
    path_rules = policy.load_path_rules([settings], project, home)
    place = policy.Place(project, home)
    for command, rule in (
        ("cat .env", "Read(./.env)"),
        ("cd /tmp && grep -r x ./secrets/prod.pem", "Read(./secrets/**)"),
        ("cat secr*/*.pem", "Read(./secrets/**)"),  # the glob's expansion
        ("tail ~/.aws/credentials", "Read(~/.aws/**)"),
        (f"cp {project}/.env /tmp/x", "Read(./.env)"),
    ):
        verdict = policy.check(command, "shell", [], path_rules, place)
        assert verdict is not None and verdict.status == "denied", command
        assert verdict.rule == rule and verdict.origin == str(settings), command
    for command in ("cat README.md", "ls", "cat .envrc", "echo .env-like", "cat *"):
        assert policy.check(command, "shell", [], path_rules, place) is None, command


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("169.254.169.254", "private"),  # Python counts link-local as private first
        ("::1", "loopback"),
        ("::ffff:192.168.0.1", "private"),
        ("0.0.0.0", "private"),  # noqa: S104 - an address checked, nothing bound
        ("224.0.0.1", "multicast"),
        ("93.184.215.14", None),
    ],
)
def test_it_refuses_non_public_addresses(address: str, why: str | None) -> None:
    assert netguard._refused(ipaddress.ip_address(address)) == why


def test_it_refuses_other_schemes_before_resolving() -> None:
    for url in ("file:///etc/passwd", "ftp://x/y", "http://"):
        with pytest.raises(netguard.BlockedURL):
            netguard.check_url(url)
    netguard.check_url("http://127.0.0.1/", allow_private=True)  # allowed: no error


def test_it_computes_the_savings_per_tool_and_in_total() -> None:
    data = {
        "session": "s",
        "tools": {
            "execute": {"calls": 2, "bytes_produced": 60_000, "bytes_returned": 600},
            "index": {"calls": 1, "bytes_produced": 0, "bytes_returned": 50},
        },
    }
    summary = stats.summary(data)
    assert summary["tools"]["execute"] == {
        "calls": 2, "bytes_produced": 60_000, "bytes_returned": 600, "bytes_saved": 59_400,
        "savings": 0.99,
    }  # fmt: skip
    assert summary["tools"]["index"]["savings"] == 0.0
    assert summary["total"]["bytes_saved"] == 59_350 and summary["total"]["calls"] == 3
