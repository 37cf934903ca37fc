"""The languages a program can be written in: those whose interpreter is on PATH."""

from __future__ import annotations

import os
import shutil
from typing import NamedTuple


class Runtime(NamedTuple):
    language: str
    program: str  # the interpreter's path
    suffix: str  # the script file's extension
    big_address_space: bool  # reserves far more virtual memory than it uses (V8, the JVM)


# language -> (interpreters to look for, in order; script suffix; big address space)
KNOWN: dict[str, tuple[tuple[str, ...], str, bool]] = {
    "shell": (("bash", "sh"), ".sh", False),
    "python": (("python3", "python"), ".py", False),
    "node": (("node", "nodejs"), ".js", True),
    "deno": (("deno",), ".ts", True),
    "bun": (("bun",), ".ts", True),
    "ruby": (("ruby",), ".rb", False),
    "perl": (("perl",), ".pl", False),
    "php": (("php",), ".php", False),
    "lua": (("lua",), ".lua", False),
    "r": (("Rscript",), ".R", False),
}
ALIASES = {
    "bash": "shell", "sh": "shell", "py": "python", "python3": "python", "js": "node",
    "javascript": "node", "typescript": "deno", "ts": "deno", "rb": "ruby", "pl": "perl",
}  # fmt: skip
BY_SUFFIX = {
    ".sh": "shell", ".bash": "shell", ".py": "python", ".js": "node", ".mjs": "node",
    ".cjs": "node", ".ts": "deno", ".rb": "ruby", ".pl": "perl", ".php": "php", ".lua": "lua",
    ".r": "r",
}  # fmt: skip


def canonical(language: str) -> str:
    name = language.strip().lower()
    return ALIASES.get(name, name)


def find(language: str, path: str | None = None) -> Runtime | None:
    """The runtime for `language` (or an alias) on PATH, or None."""
    name = canonical(language)
    known = KNOWN.get(name)
    if known is None:
        return None
    programs, suffix, big = known
    for program in programs:
        found = shutil.which(program, path=path)
        if found:
            return Runtime(name, found, suffix, big)
    return None


def available(path: str | None = None) -> list[Runtime]:
    """Every known runtime found on PATH, in the table's order."""
    path = path if path is not None else os.environ.get("PATH")
    return [rt for rt in (find(name, path) for name in KNOWN) if rt is not None]


def language_of(filename: str) -> str | None:
    """The language a file's extension names, or None."""
    return BY_SUFFIX.get(os.path.splitext(filename)[1].lower())
