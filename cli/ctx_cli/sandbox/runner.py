"""Run a program in a subprocess with limits, and read what it prints with a cap.

Limits, set in the child before it runs (`preexec_fn`): address space and data (memory),
CPU seconds, file size, process count (against fork bombs), no core files. Its own session
and process group (`start_new_session`), killed as a group on timeout or when the output
passes its cap. A temporary HOME and XDG directories, and an environment scrubbed of
credentials (`policy.scrub_env`).

Where Linux allows it (`unshare` of user namespaces), the program also runs in its own
network namespace (no network), mount namespace (a tmpfs over the CLI's config directory,
so the key file cannot be read even by absolute path) and PID namespace (every process it
starts dies with it). A superuser's program runs as `nobody`: the kernel never applies the
process-count limit to root. `isolation` in the result says what the OS allowed.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

from ctx_cli.sandbox import policy, runtimes

MB = 1024 * 1024
NOBODY = 65534
HIDE_SCRIPT = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do '
    'mount -t tmpfs -o size=4k,mode=0500 ctx-hidden "$1" '
    '|| { echo "ctx sandbox: cannot hide $1" >&2; exit 125; }; shift; n=$((n-1)); done; exec "$@"'
)
KILL_DRAIN = 0.2  # seconds to read what is left once the program is gone


class Limits(NamedTuple):
    timeout: float = 30.0  # wall-clock seconds
    memory_mb: int = 1024  # address space (data segment for V8 / JVM runtimes)
    max_output: int = 2 * MB  # bytes of stdout + stderr read; past it the group is killed
    processes: int = 64  # more processes than the user already has
    file_mb: int = 64  # largest file it may write


DEFAULT_LIMITS = Limits()


class Isolation(NamedTuple):
    namespaces: bool
    network: str  # "off" or "on"
    config_dir: str  # "hidden", "unreadable" (another user's), "visible" or "absent"
    user: str  # "nobody" or "self"

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


_PROBES: dict[tuple[Any, ...], bool] = {}


def _drop_user() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _user_kwargs() -> dict[str, Any]:
    return {"user": NOBODY, "group": NOBODY, "extra_groups": []} if _drop_user() else {}


def _unshare_argv(network: bool) -> list[str] | None:
    """The `unshare` prefix that works here, or None (not Linux, no unshare, refused)."""
    program = shutil.which("unshare") if sys.platform.startswith("linux") else None
    if program is None:
        return None
    argv = [program, "--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child"]
    argv += [] if network else ["--net"]
    key = (tuple(argv), _drop_user())
    if key not in _PROBES:
        try:
            probe = subprocess.run(  # noqa: S603 - fixed argv, no user input
                [*argv, "--mount-proc", "true"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=5,
                **_user_kwargs(),
            )
            _PROBES[key] = probe.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _PROBES[key] = False
    return [*argv, "--mount-proc"] if _PROBES[key] else None


def _reachable(path: str) -> bool:
    """Whether `nobody` can reach `path`: it and every directory above it searchable by
    others."""
    current = Path(path)
    for part in [current, *current.parents]:
        try:
            if not part.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def child_path(environ: Mapping[str, str]) -> str:
    """PATH for the program: the directories a dropped `nobody` can reach (all of them when
    the CLI does not run as root)."""
    dirs = (environ.get("PATH") or os.defpath).split(os.pathsep)
    if _drop_user():
        dirs = [d for d in dirs if d and _reachable(d)]
    return os.pathsep.join(dirs)


def _count_processes(uid: int) -> int | None:
    """Processes the user runs now (Linux /proc; RLIMIT_NPROC counts them too), or None
    where there is no /proc to count them."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    count = 0
    for entry in entries:
        if entry.isdigit():
            with contextlib.suppress(OSError):  # gone meanwhile
                count += os.stat(f"/proc/{entry}").st_uid == uid
    return count


def _preexec(limits: Limits, big_address_space: bool, nproc: int | None) -> Any:
    import resource  # POSIX only; imported where it is used

    def limit(kind: int, value: int) -> None:
        hard = resource.getrlimit(kind)[1]  # never above the hard limit the user already has
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))

    def apply() -> None:
        memory = limits.memory_mb * MB
        if not big_address_space:
            limit(resource.RLIMIT_AS, memory)
        limit(resource.RLIMIT_DATA, memory)
        limit(resource.RLIMIT_CPU, int(limits.timeout) + 1)
        limit(resource.RLIMIT_FSIZE, limits.file_mb * MB)
        if nproc is not None:  # without a count, a limit could stop the user's first fork
            limit(resource.RLIMIT_NPROC, nproc)
        limit(resource.RLIMIT_CORE, 0)

    return apply


def _isolation(
    network: bool, hide: Sequence[Path]
) -> tuple[list[str] | None, list[str], Isolation]:
    """The namespace prefix (None: not available), the directories to hide, and the report."""
    prefix = _unshare_argv(network)
    hidden, config_state = _hideable(hide)
    if prefix is None and config_state == "hidden":
        config_state = "visible"
    isolation = Isolation(
        namespaces=prefix is not None,
        network="off" if prefix is not None and not network else "on",
        config_dir=config_state,
        user="nobody" if _drop_user() else "self",
    )
    return prefix, hidden, isolation


def probe_isolation(network: bool = False, hide: Sequence[Path] = ()) -> dict[str, Any]:
    """What a run would get here (`ctx runtimes`)."""
    return _isolation(network, hide)[2].as_dict()


def _hideable(dirs: Sequence[Path]) -> tuple[list[str], str]:
    """The directories to cover with a tmpfs, and what the result reports about them."""
    existing = [d for d in dirs if d.is_dir()]
    if not existing:
        return [], "absent"
    if _drop_user():
        reachable = [str(d) for d in existing if _reachable(str(d))]
        return reachable, "hidden" if reachable else "unreadable"
    return [str(d) for d in existing], "hidden"


def _sandbox_dir() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="ctx-exec-"))
    for sub in ("home", "home/.config", "home/.cache", "home/.local/share", "tmp"):
        (tmp / sub).mkdir(parents=True, exist_ok=True)
    if _drop_user():
        for root, dirs, files in os.walk(tmp):
            for name in [".", *dirs, *files]:
                os.chown(os.path.join(root, name), NOBODY, NOBODY)
    return tmp


def _give(path: Path) -> None:
    if _drop_user():
        os.chown(path, NOBODY, NOBODY)


def child_env(
    environ: Mapping[str, str], tmp: Path, known_secrets: Sequence[str]
) -> dict[str, str]:
    env = policy.scrub_env(environ, known_secrets=known_secrets)
    home = tmp / "home"
    env.update(
        PATH=child_path(environ),
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        TMPDIR=str(tmp / "tmp"),
    )
    env.setdefault("LANG", "C.UTF-8")
    return env


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: its children too


class _Reader:
    """stdout and stderr of a process, read together until EOF, the deadline or the cap."""

    def __init__(self, proc: subprocess.Popen[bytes], limits: Limits, started: float) -> None:
        self.proc, self.limits, self.started = proc, limits, started
        self.out: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
        self.timed_out = self.capped = False
        self.first_byte: float | None = None

    def read(self) -> None:
        sel = selectors.DefaultSelector()
        streams: list[tuple[IO[bytes] | None, str]] = [
            (self.proc.stdout, "stdout"),
            (self.proc.stderr, "stderr"),
        ]
        for stream, name in streams:
            assert stream is not None
            sel.register(stream, selectors.EVENT_READ, name)
        deadline = self.started + self.limits.timeout
        gone_at: float | None = None
        while sel.get_map():
            now = time.monotonic()
            if gone_at is None and self.proc.poll() is not None:
                gone_at = now  # exited; grandchildren may still hold the pipes
                _kill(self.proc)
            if gone_at is not None and now - gone_at > KILL_DRAIN:
                break
            if now >= deadline:
                self.timed_out = True
                _kill(self.proc)
                break
            for key, _ in sel.select(timeout=min(0.05, deadline - now)):
                self._take(sel, key)
            if self.capped:
                _kill(self.proc)
                break
        sel.close()

    def _take(self, sel: selectors.BaseSelector, key: selectors.SelectorKey) -> None:
        data = os.read(key.fd, 65536)
        if not data:
            sel.unregister(key.fileobj)
            return
        if self.first_byte is None and key.data == "stdout":
            self.first_byte = time.monotonic()
        room = self.limits.max_output - sum(len(b) for b in self.out.values())
        if len(data) > room:
            data, self.capped = data[: max(room, 0)], True
        self.out[key.data] += data


def _signal_name(code: int) -> str | None:
    if code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def run(
    code: str,
    language: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    cwd: str | None = None,
    environ: Mapping[str, str] = os.environ,
    known_secrets: Sequence[str] = (),
    hide: Sequence[Path] = (),
    network: bool = False,
    stdin_file: Path | None = None,
) -> dict[str, Any]:
    """Run `code` and return what it printed (`stdout`, `stderr` as text), `exit_code`,
    `signal`, `timed_out`, `output_capped`, `duration_ms`, `first_byte_ms`, `limits` and
    `isolation`; times count from the call (the sandbox's set-up included). A language with
    no runtime on PATH raises LookupError."""
    started = time.monotonic()
    tmp = _sandbox_dir()
    try:
        env = child_env(environ, tmp, known_secrets)
        runtime = runtimes.find(language, path=env["PATH"])
        if runtime is None:
            raise LookupError(f"no runtime for {language!r} on PATH")
        script = tmp / f"main{runtime.suffix}"
        script.write_text(code, encoding="utf-8")
        _give(script)
        extra: dict[str, str] = {}
        if stdin_file is not None:
            copy = tmp / ("input" + stdin_file.suffix)
            shutil.copyfile(stdin_file, copy)
            _give(copy)
            extra["INPUT_FILE"] = str(copy)
            stdin_file = copy
        env.update(extra)
        return _run(runtime, script, limits, cwd, env, hide, network, stdin_file, started)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(
    runtime: runtimes.Runtime,
    script: Path,
    limits: Limits,
    cwd: str | None,
    env: dict[str, str],
    hide: Sequence[Path],
    network: bool,
    stdin_file: Path | None,
    started: float,
) -> dict[str, Any]:
    argv = [runtime.program, str(script)]
    prefix, hidden, isolation = _isolation(network, hide)
    if prefix is not None:
        argv = [*prefix, "/bin/sh", "-c", HIDE_SCRIPT, "ctx-sandbox", str(len(hidden)), *hidden]
        argv += [runtime.program, str(script)]
    uid = NOBODY if _drop_user() else os.getuid()
    running = _count_processes(uid)
    nproc = None if running is None else running + limits.processes
    stdin = open(stdin_file, "rb") if stdin_file is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        proc = subprocess.Popen(  # noqa: S603 - the sandbox runs what it is given
            argv,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_preexec(limits, runtime.big_address_space, nproc),
            **_user_kwargs(),
        )
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()  # type: ignore[union-attr]
    reader = _Reader(proc, limits, started)
    try:
        reader.read()
    finally:
        _kill(proc)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        code = proc.wait()
    return {
        "language": runtime.language,
        "exit_code": code,
        "signal": _signal_name(code),
        "timed_out": reader.timed_out,
        "output_capped": reader.capped,
        "stdout": reader.out["stdout"].decode("utf-8", "replace"),
        "stderr": reader.out["stderr"].decode("utf-8", "replace"),
        "duration_ms": round((time.monotonic() - started) * 1000, 1),
        "first_byte_ms": None
        if reader.first_byte is None
        else round((reader.first_byte - started) * 1000, 1),
        "limits": limits._asdict(),
        "isolation": isolation.as_dict(),
    }
