"""What a sandboxed program may see and run: a scrubbed environment and Claude Code's deny rules.

A deny rule is a safety block: the command never starts. A redirect is neutral advice: the
command would work badly here (the network is off), another tool does it better; it does not
start either, and the answer says which tool to use instead.

`Bash(...)` rules are matched against each simple command; `Read(...)` rules against the
files handed over by path and against the words of each simple command that may name a file
(`cat .env`). That word check is best effort: a program can still open a path it computes
(`cat $(echo .e)nv`, `open(".env")` in Python); the sandbox's temporary HOME, hidden config
directory and namespaces remain the real guard.
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

# Names that carry credentials by convention; matched case-insensitively as substrings.
SECRET_WORDS = (
    "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE",
    "_PAT", "_DSN", "SESSION",
)  # fmt: skip
SECRET_PREFIXES = ("CTX_", "AWS_", "AZURE_", "GCP_", "GOOGLE_", "GH_", "GITHUB_", "NPM_", "PYPI_")
SECRET_NAMES = frozenset(
    {"DATABASE_URL", "REDIS_URL", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KUBECONFIG", "DOCKER_HOST"}
)
URL_WITH_PASSWORD = re.compile(r"://[^/\s:@]+:[^/\s@]+@")


def is_secret(name: str, value: str) -> bool:
    upper = name.upper()
    return (
        upper in SECRET_NAMES
        or upper.startswith(SECRET_PREFIXES)
        or any(word in upper for word in SECRET_WORDS)
        or bool(URL_WITH_PASSWORD.search(value))
    )


def scrub_env(environ: Mapping[str, str], *, known_secrets: Iterable[str] = ()) -> dict[str, str]:
    """`environ` without credentials: secret-looking names, URLs with a password, and any
    variable whose value holds one of `known_secrets` (the configured API key) under any name."""
    secrets = [s for s in known_secrets if s and len(s) >= 8]
    return {
        name: value
        for name, value in environ.items()
        if not is_secret(name, value) and not any(s in value for s in secrets)
    }


# --- Claude Code permissions.deny ----------------------------------------------------------


class Rule(NamedTuple):
    pattern: str  # inside Bash(...); "" for a bare `Bash` (every command)
    origin: str  # the settings file it came from


class Verdict(NamedTuple):
    status: str  # "denied" (a safety block) or "redirected" (use another tool)
    command: str
    message: str
    rule: str | None = None
    origin: str | None = None
    tool: str | None = None


def settings_files(project: Path, home: Path) -> list[Path]:
    """Claude Code's settings, user first: the deny lists of all of them apply."""
    return [
        home / ".claude" / "settings.json",
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
    ]


def _bash_pattern(entry: str) -> str | None:
    entry = entry.strip()
    if entry == "Bash":
        return ""
    if entry.startswith("Bash(") and entry.endswith(")"):
        return entry[5:-1].strip()
    return None


def _deny_list(path: Path) -> Any:
    """The `permissions.deny` value of a settings file, or None (a missing or unreadable file,
    or one that is not valid JSON, is skipped: Claude Code reports it itself)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return (data.get("permissions") or {}).get("deny") if isinstance(data, dict) else None


def load_rules(paths: Iterable[Path]) -> list[Rule]:
    """The `Bash(...)` entries of `permissions.deny` in the files that exist; a file that is
    not valid JSON is skipped (Claude Code reports it itself)."""
    rules = []
    for path in paths:
        deny = _deny_list(path)
        for entry in deny if isinstance(deny, list) else ():
            pattern = _bash_pattern(entry) if isinstance(entry, str) else None
            if pattern is not None:
                rules.append(Rule(pattern, str(path)))
    return rules


SEPARATORS = re.compile(r"\$\(|`|\(|\)|&&|\|\||[;&|\n]")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
WRAPPERS = ("sudo ", "exec ", "command ", "env ", "nohup ", "time ")


def shell_commands(script: str) -> list[str]:
    """The simple commands of a shell script, split at `;`, `&&`, `||`, `|`, `&`, newlines,
    subshells and command substitutions, each without leading `VAR=value` and wrappers."""
    out = []
    for part in SEPARATORS.split(script):
        command = " ".join(part.split())
        changed = True
        while changed and command:
            changed = False
            stripped = ASSIGNMENT.sub("", command, count=1)
            for wrapper in WRAPPERS:
                if stripped.startswith(wrapper):
                    stripped = stripped[len(wrapper) :].lstrip()
            changed, command = stripped != command, stripped
        if command and not command.startswith("#"):
            out.append(command)
    return out


# Shell-outs in other languages: the first string argument of the usual calls.
SHELL_OUT = re.compile(
    r"\b(?:system|popen|run|call|check_call|check_output|Popen|getoutput|exec|execSync|spawn"
    r"|spawnSync|execFileSync)\s*\(\s*(?:\[\s*)?(['\"`])((?:\\.|(?!\1).)*)\1"
)


def embedded_commands(code: str) -> list[str]:
    """Commands a Python / Node / other program passes to a shell, as far as a literal shows."""
    return [cmd for match in SHELL_OUT.finditer(code) for cmd in shell_commands(match.group(2))]


def matches(pattern: str, command: str) -> bool:
    """Claude Code's Bash rule syntax: `prefix:*` (the command or the command and arguments),
    globs with `*`, else the exact command; a bare `Bash` matches everything."""
    if pattern == "":
        return True
    if pattern.endswith(":*"):
        prefix = pattern[:-2].rstrip()
        return command == prefix or command.startswith(prefix + " ")
    if "*" in pattern:
        return fnmatch.fnmatchcase(command, pattern) or fnmatch.fnmatchcase(command, pattern + " *")
    return command == pattern


REDIRECTS = {
    "curl": ("fetch_and_index", "the sandbox has no network: use fetch_and_index for URLs"),
    "wget": ("fetch_and_index", "the sandbox has no network: use fetch_and_index for URLs"),
}


class Place(NamedTuple):
    """Where a command's relative paths and `~` point: its working directory, the home."""

    cwd: Path
    home: Path


def check(
    code: str,
    language: str,
    rules: list[Rule],
    path_rules: Sequence[PathRule] = (),
    place: Place | None = None,
) -> Verdict | None:
    """Why `code` must not start (a Bash or Read deny rule, or a redirect), or None."""
    commands = shell_commands(code) if language == "shell" else embedded_commands(code)
    for command in commands:
        for rule in rules:
            if matches(rule.pattern, command):
                return Verdict(
                    "denied",
                    command,
                    f"blocked by the deny rule Bash({rule.pattern}) in {rule.origin}",
                    rule=f"Bash({rule.pattern})" if rule.pattern else "Bash",
                    origin=rule.origin,
                )
    if path_rules:
        verdict = read_denied(commands, path_rules, place or Place(Path.cwd(), Path.home()))
        if verdict is not None:
            return verdict
    for command in commands:
        redirect = REDIRECTS.get(command.split()[0])
        if redirect:
            return Verdict("redirected", command, redirect[1], tool=redirect[0])
    return None


# --- Read(...) rules: files handed to execute_file and index ---------------------------


class PathRule(NamedTuple):
    pattern: str  # absolute, with * and ** (gitignore-like: a match covers the subtree)
    rule: str  # as written: Read(./.env)
    origin: str


def load_path_rules(paths: Iterable[Path], project: Path, home: Path) -> list[PathRule]:
    """The `Read(...)` entries of `permissions.deny` made absolute: `//x` from the root,
    `~/x` from the home, `/x` from the settings' root (the project; the home for the user's
    file), anything else from the project."""
    rules = []
    for path in paths:
        deny = _deny_list(path)
        user_file = path.parent.parent == home
        for entry in deny if isinstance(deny, list) else ():
            if not (isinstance(entry, str) and entry.startswith("Read(") and entry.endswith(")")):
                continue
            spec = entry[5:-1].strip()
            if spec.startswith("//"):
                absolute = spec[1:]
            elif spec.startswith("~/"):
                absolute = str(home / spec[2:])
            elif spec.startswith("/"):
                absolute = str((home if user_file else project) / spec[1:])
            else:
                absolute = str(project / spec.removeprefix("./"))
            rules.append(PathRule(absolute.rstrip("/"), entry, str(path)))
    return rules


def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    for part in re.split(r"(\*\*/?|\*|\?)", pattern):
        if part.startswith("**"):
            out.append(".*")
        elif part == "*":
            out.append("[^/]*")
        elif part == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out) + "(/.*)?")


def path_denied(file: Path, rules: list[PathRule]) -> PathRule | None:
    """The Read rule that covers `file` (resolved, symlinks followed), or None."""
    target = str(file.resolve())
    for rule in rules:
        if _glob_regex(rule.pattern).fullmatch(target):
            return rule
    return None


# shlex's punctuation tokens: redirections, pipes, separators
PUNCTUATION = frozenset("<>|&;()")
MOST_EXPANSIONS = 1000  # files one glob word may name, checked


def command_words(command: str) -> list[str]:
    """The words of a simple command that may name a file: the arguments (an option's
    `=value`; `<`, `>` and the like split off), and the program when given by path."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # an unbalanced quote: the words as written
        words = command.split()
    found = []
    for n, word in enumerate(words):
        if word.startswith("-"):
            word = word.partition("=")[2]
        elif n == 0 and "/" not in word:  # a program looked up on PATH
            continue
        if word and not set(word) <= PUNCTUATION:
            found.append(word)
    return found


def _named(word: str, place: Place) -> list[Path]:
    """The paths a word names: itself (from the working directory, `~` from the home) and,
    for a glob, the files the shell would expand it to now (dot files only when named)."""
    path = place.home / word[2:] if word.startswith("~/") else place.cwd / word
    if not glob.has_magic(word):
        return [path]
    return [path, *(Path(p) for p in itertools.islice(glob.iglob(str(path)), MOST_EXPANSIONS))]


def read_denied(commands: Iterable[str], rules: Sequence[PathRule], place: Place) -> Verdict | None:
    """The first command with a word naming a path a `Read(...)` rule covers, as a denial."""
    for command in commands:
        for word in command_words(command):
            for path in _named(word, place):
                rule = _covering(path, rules)
                if rule is not None:
                    return Verdict(
                        "denied",
                        command,
                        f"blocked by the deny rule {rule.rule} in {rule.origin}: it names {word}",
                        rule=rule.rule,
                        origin=rule.origin,
                    )
    return None


def _covering(path: Path, rules: Sequence[PathRule]) -> PathRule | None:
    try:
        return path_denied(path, list(rules))
    except (OSError, RuntimeError):  # a symlink loop: the program will fail to open it too
        return None


def project_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """The project whose `.claude/` settings apply: Claude Code's CLAUDE_PROJECT_DIR, else
    the working directory (Claude Code starts MCP servers in the project)."""
    return Path(environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
