"""The client's configuration: `$XDG_CONFIG_HOME/ctx/config`, `KEY=value` lines, mode 0600.

Environment variables override the file. A malformed file is an error naming the file and the
line (configuration fails loudly); a missing file is fine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from ctx_cli import CliError

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
SETTINGS = ("CTX_BASE_URL", "CTX_KEY")
HEADER = "# ctx client configuration, written by `ctx init`. Environment variables override it.\n"


class ConfigError(CliError):
    pass


class Config(NamedTuple):  # not a dataclass: `dataclasses` costs start-up time
    base_url: str
    key: str | None
    path: Path


def config_path(environ: Mapping[str, str] = os.environ) -> Path:
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "ctx" / "config"


def state_home(environ: Mapping[str, str] = os.environ) -> Path:
    """The client's state directory (`$XDG_STATE_HOME/ctx`, default `~/.local/state/ctx`):
    what the CLI remembers between runs (ingest and session-import cursors), never inside the
    folders it reads."""
    base = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "ctx"


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _parse_line(raw: str, path: Path, number: int) -> tuple[str, str] | None:
    line = raw.strip()
    if not line or line.startswith("#"):
        return None
    name, sep, value = line.removeprefix("export ").partition("=")
    name = name.strip()
    if not sep or not name:
        raise ConfigError(f"config file {path}, line {number}: expected KEY=value, got {line!r}")
    if name not in SETTINGS:
        known = ", ".join(SETTINGS)
        raise ConfigError(f"config file {path}, line {number}: unknown setting {name} ({known})")
    return name, _unquote(value.strip())


def parse(text: str, path: Path) -> dict[str, tuple[str, str]]:
    """Each setting's value and where it came from ("config file X, line N")."""
    values: dict[str, tuple[str, str]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        parsed = _parse_line(raw, path, number)
        if parsed is not None:
            values[parsed[0]] = (parsed[1], f"config file {path}, line {number}")
    return values


def read_file(path: Path) -> dict[str, tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    return parse(text, path)


def check_url(url: str, origin: str) -> str:
    """The base URL without a trailing slash; a ConfigError naming `origin` if it is not one."""
    url = url.strip().rstrip("/")
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https") or not rest:
        raise ConfigError(f"{origin}: CTX_BASE_URL must be an http:// or https:// URL, got {url!r}")
    return url


def load(environ: Mapping[str, str] = os.environ) -> Config:
    path = config_path(environ)
    values = read_file(path)
    for name in SETTINGS:
        if environ.get(name):
            values[name] = (environ[name], f"environment variable {name}")
    url, origin = values.get("CTX_BASE_URL", (DEFAULT_BASE_URL, "default"))
    key = values.get("CTX_KEY", ("", ""))[0].strip() or None
    return Config(base_url=check_url(url, origin), key=key, path=path)


def write(path: Path, *, base_url: str, key: str) -> None:
    """Write the file atomically with mode 0600: it holds a secret."""
    for value in (base_url, key):
        if "\n" in value or "\r" in value:
            raise ConfigError("configuration values cannot contain line breaks")
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f"{HEADER}CTX_BASE_URL={base_url}\nCTX_KEY={key}\n")
    os.chmod(tmp, 0o600)  # the umask may have narrowed it; never widened
    os.replace(tmp, path)
