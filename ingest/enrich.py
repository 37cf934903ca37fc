"""What a saved decision, error solution or insight mentions: files and tools (pure).

Files are tokens with a known source or configuration extension (with or without folders:
`src/app.py`, `pyproject.toml`) and the well-known extension-less names (`Dockerfile`);
URLs are taken out first, so `example.com/page.html` is not a file. Tools are names from a
fixed vocabulary of developer tools and AI coding tools, matched as whole words (names that
are also common English words, like make, go or black, are left out: they matched prose).
"""

from __future__ import annotations

import re

MAX_ITEMS = 20

EXTENSIONS = [
    "py",
    "pyi",
    "ipynb",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "vue",
    "svelte",
    "go",
    "rs",
    "java",
    "kt",
    "kts",
    "scala",
    "rb",
    "php",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "swift",
    "m",
    "mm",
    "dart",
    "lua",
    "r",
    "jl",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "clj",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "bat",
    "sql",
    "graphql",
    "proto",
    "md",
    "mdx",
    "rst",
    "txt",
    "json",
    "jsonl",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "env",
    "lock",
    "xml",
    "html",
    "htm",
    "css",
    "scss",
    "sass",
    "less",
    "csv",
    "tsv",
    "tf",
    "tfvars",
    "hcl",
    "gradle",
    "properties",
    "plist",
    "dockerfile",
    "nix",
]
BARE_NAMES = ("Dockerfile", "Makefile", "Procfile", "Jenkinsfile", "Gemfile", "Rakefile")

TOOLS = [
    "git",
    "gh",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "ansible",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "node",
    "pip",
    "pipx",
    "uv",
    "poetry",
    "conda",
    "pytest",
    "tox",
    "nox",
    "ruff",
    "mypy",
    "flake8",
    "pylint",
    "eslint",
    "prettier",
    "jest",
    "vitest",
    "webpack",
    "vite",
    "cmake",
    "cargo",
    "rustc",
    "gradle",
    "mvn",
    "java",
    "dotnet",
    "psql",
    "pg_dump",
    "mysql",
    "sqlite3",
    "redis-cli",
    "curl",
    "wget",
    "ssh",
    "rsync",
    "nginx",
    "systemctl",
    "journalctl",
    "celery",
    "django",
    "alembic",
    "grep",
    "rg",
    "sed",
    "awk",
    "jq",
    "tmux",
    "vim",
]
AI_TOOLS = {
    "claude code": "claude-code",
    "claude-code": "claude-code",
    "codex": "codex",
    "gemini cli": "gemini",
    "cursor": "cursor",
    "copilot": "copilot",
    "chatgpt": "chatgpt",
}

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_EXT = "|".join(sorted(EXTENSIONS, key=len, reverse=True))
_FILE = re.compile(
    r"(?<![\w@/\\.-])((?:[A-Za-z]:\\|~?/|\./|\.\./)?(?:[\w.@-]+[/\\])*"
    rf"(?:[\w@-][\w.@-]*\.(?:{_EXT})|{'|'.join(BARE_NAMES)}))(?![\w/\\-])",
    re.IGNORECASE,
)
_TOOL = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(t) for t in TOOLS) + r")(?![\w-])", re.IGNORECASE
)


def files(text: str) -> list[str]:
    found = _FILE.findall(_URL.sub(" ", text))
    return list(dict.fromkeys(f.rstrip(".") for f in found))[:MAX_ITEMS]


def tools(text: str) -> list[str]:
    lowered = text.lower()
    named = [name for phrase, name in AI_TOOLS.items() if re.search(rf"\b{phrase}\b", lowered)]
    found = [m.lower() for m in _TOOL.findall(_URL.sub(" ", text))]
    return list(dict.fromkeys([*named, *found]))[:MAX_ITEMS]
