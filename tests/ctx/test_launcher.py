"""`make run` end to end: embedded services, a key printed once, data kept across restarts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


class Server:
    def __init__(self, data_dir: Path) -> None:
        env = {
            k: v
            for k, v in os.environ.items()
            if k
            not in {
                "DATABASE_URL",
                "REDIS_URL",
                "CTX_TESTING",
                "CTX_DATA_DIR",
                "CTX_SECRETS_KEY",  # as on a fresh machine: the first start makes the key
                "CTX_SECRETS_KEY_FILE",
            }
        }
        env.update(CTX_DATA_DIR=str(data_dir), CTX_PORT="0", CTX_WORKERS="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctx.runtime.launcher", "run"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        self.url = self._read_until(r"ctx is running at (\S+)").group(1)
        self.key = self._maybe_key()

    # Generous: on a loaded 2-core machine the first start (migrations, collectstatic, every
    # child ready, the web server's embedder loaded) has taken 245 s; this is a readiness
    # deadline, not a speed claim.
    def _read_until(self, pattern: str, timeout: float = 360) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                break
            self.output.append(line)
            match = re.search(pattern, line)
            if match:
                return match
        raise AssertionError("server did not start:\n" + "".join(self.output[-40:]))

    def _maybe_key(self) -> str | None:
        # The banner prints the key (if any) between the URL line and "ctx: ready".
        lines_before = len(self.output)
        self._read_until(r"^ctx: ready")
        banner = "".join(self.output[lines_before:])
        self.banner = self.output[lines_before - 1 :]
        match = re.search(r"^\s+(ctx_[a-z0-9]{8}_[A-Za-z0-9]{40})\s*$", banner, re.M)
        return match.group(1) if match else None

    def stop(self) -> int:
        """Ctrl-C; the output up to the end (what the children print when they stop) is kept."""
        self.proc.send_signal(signal.SIGINT)
        rest, _ = self.proc.communicate(timeout=60)
        self.output.append(rest)
        return self.proc.returncode


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "data"


MASTER_KEY_MADE = "ctx: made the master key for sealed secrets"


def _assert_master_key_made(server: Server, data_dir: Path) -> str:
    """`make run` makes the sealed secrets' master key once into the data directory, owner
    only, and says so once."""
    key_file = data_dir / "secrets_key"
    assert key_file.stat().st_mode & 0o777 == 0o600 and len(key_file.read_text()) == 64
    assert sum(MASTER_KEY_MADE in line for line in server.output) == 1
    return key_file.read_text()


def _put_secret(c: httpx.Client, value: str) -> int:
    return c.put("/api/secrets/db-password", json={"value": value}).status_code


def _assert_embedded_by_the_worker(c: httpx.Client, block_id: str) -> None:
    """The write enqueued the embedding after commit; the worker did it well before the first
    periodic backfill (60 s after start), and the block is then found by meaning."""
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        stats = c.post("/api/manage", json={"action": "stats"}).json()["stats"]
        if stats["awaiting_embedding"] == 0:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("the worker did not embed the stored block")
    body = c.post(
        "/api/query", json={"query": "container orchestration in production", "explain": True}
    ).json()
    assert body["sources"][0]["id"] == block_id
    assert "semantic" in body["explain"]["hits"][block_id]["arms"]


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_text().replace("\0", " ")
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append((int(entry.name), cmdline))
    return found


def _assert_imported_by_the_ingest_worker(c: httpx.Client) -> None:
    """A conversation batch answers 202 at once; the ingest queue's worker imports it."""
    body = {
        "platform": "codex",
        "session_id": "s1",
        "messages": [{"role": "user", "content": "hi"}],
    }
    accepted = c.post("/api/sessions/import", json=body)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job"]["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = c.get(f"/api/jobs/{job_id}").json()["job"]
        if job["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert job["status"] == "done", job
    assert c.get("/api/sessions").json()["sessions"][0]["external_id"] == "s1"


def _nice(pid: int) -> int:
    return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[16])


def _autogroup_nice(pid: int) -> int | None:
    """The nice value of the process's session group ("/autogroup-58 nice 10"), if any."""
    try:
        return int((Path("/proc") / str(pid) / "autogroup").read_text().split()[-1])
    except OSError:
        return None


def _sign_in_to_the_admin(url: str, key: str) -> None:
    """The banner's instruction works: the bootstrap key signs in, the blocks page answers."""
    with httpx.Client(base_url=url, timeout=30) as c:
        c.get("/admin/login/")
        token = c.cookies["csrftoken"]
        # What the login form posts (its hidden `next` field, which the admin sets to /admin/).
        form = {"api_key": key, "csrfmiddlewaretoken": token, "next": "/admin/"}
        signed = c.post("/admin/login/", data=form)
        assert signed.status_code == 302 and signed.headers["location"] == "/admin/"
        assert c.get("/admin/ctx/block/").status_code == 200


def test_it_tells_how_to_sign_in_to_the_admin_on_every_start(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from ctx.runtime.launcher import _banner

    _banner("http://127.0.0.1:8000", "ctx_abcdefgh_" + "x" * 40, tmp_path)
    first = capsys.readouterr().out
    assert "Admin: open http://127.0.0.1:8000/admin/ and sign in with this key." in first
    _banner("http://127.0.0.1:8000", "", tmp_path)
    later = capsys.readouterr().out
    assert "Admin: http://127.0.0.1:8000/admin/, signed in with an owner or admin API key" in later
    assert "manage.py keys create" in later


# What `make run` printed before it was quieted (issue #19, item 8): Celery's banners, the model's
# progress bars, platformdirs' and the resource tracker's warnings. None is for the user to act on.
NOISE = (
    "-------------- [queues]",
    "celery beat v",
    "Loading weights",
    "XDG_RUNTIME_DIR",
    "leaked semaphore",
)
BANNER_LINES = re.compile(
    r"^(|ctx is running at .*|Bootstrap admin key .*|    ctx_\S+|    curl .*|Admin: .*"
    r"|The `ctx` command line is .*|ctx: ready)$"
)


def _assert_quiet_with_the_key_last(first: Server, data_dir: Path) -> None:
    """Nothing a child prints comes between the URL line and "ctx: ready"; and by then the
    web server had loaded its embedder (the query encoder exported: the first question's 5 s)."""
    assert [line for line in first.banner if not BANNER_LINES.match(line.rstrip("\n"))] == []
    assert list((data_dir / "models").glob("query-encoder-*.onnx"))


def test_it_runs_stores_and_keeps_data_across_restarts(data_dir: Path) -> None:
    first = Server(data_dir)
    try:
        assert first.key, "the first start must print a bootstrap key"
        _assert_quiet_with_the_key_last(first, data_dir)
        made = _assert_master_key_made(first, data_dir)
        spawned = _children(first.proc.pid)
        workers = [(pid, cmd) for pid, cmd in spawned if "celery" in cmd and " worker " in cmd]
        (worker,) = [pid for pid, cmd in workers if "--queues ingest" not in cmd]
        (importer,) = [pid for pid, cmd in workers if "--queues ingest" in cmd]
        (web,) = [pid for pid, cmd in spawned if "uvicorn" in cmd]
        assert _nice(worker) > _nice(web)  # background work yields the CPU to requests
        if _autogroup_nice(web) is not None:  # Linux schedules by session first
            assert _autogroup_nice(worker) > _autogroup_nice(web)  # type: ignore[operator]
        assert _nice(importer) == _nice(web)  # conversation imports: a client waits for them
        # collectstatic ran before the web server: the admin links its hashed stylesheet.
        login = httpx.get(first.url + "/admin/login/", timeout=30).text
        css = re.search(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"', login)
        assert css, login[:500]
        assert httpx.get(first.url + css.group(1), timeout=30).status_code == 200
        banner = "".join(first.output)
        assert f"Admin: open {first.url}/admin/ and sign in with this key." in banner
        # migrate, bootstrap and the settings' record run in one process; its log is shown
        assert sum("INFO ctx.config config record {" in line for line in first.output) == 1
        _sign_in_to_the_admin(first.url, first.key)
        h = {"X-Context-Key": first.key}
        with httpx.Client(base_url=first.url, headers=h, timeout=30) as c:
            stored = c.post(
                "/api/store",
                json={
                    "category": "infra",
                    "title": "Docker",
                    "content": "We run compose v2 in prod.",
                },
            ).json()
            assert stored["action"] == "created"
            found = c.post("/api/search", json={"query": "compose prod"}).json()
            assert [r["id"] for r in found["results"]] == [stored["id"]]
            got = c.post("/api/manage", json={"action": "get", "id": stored["id"]}).json()
            assert got["block"]["content"] == "We run compose v2 in prod."
            upd = c.post(
                "/api/manage",
                json={
                    "action": "update",
                    "id": stored["id"],
                    "fields": {"content": "compose v3 now"},
                },
            )
            assert upd.status_code == 200
            deleted = c.post("/api/manage", json={"action": "delete", "id": stored["id"]})
            assert deleted.json()["action"] == "archived"
            kept = c.post(
                "/api/store",
                json={"category": "infra", "title": "Kept", "content": "survives restarts"},
            ).json()
            _assert_imported_by_the_ingest_worker(c)
            assert _put_secret(c, "s3cret-1") == 201  # was 503: no master key
    finally:
        assert first.stop() == 0
    said = "".join(first.output)  # the start, the requests (the model loads) and the stop
    assert [noise for noise in NOISE if noise in said] == [], said
    second = Server(data_dir)
    try:
        assert second.key is None, "the key is printed on the first start only"
        with httpx.Client(base_url=second.url, headers={"X-Context-Key": first.key}) as c:
            got = c.post("/api/manage", json={"action": "get", "id": kept["id"]}).json()
            assert got["block"]["content"] == "survives restarts"
            # The master key was kept, not made again: the sealed secret opens and rotates.
            assert (data_dir / "secrets_key").read_text() == made
            assert not any(MASTER_KEY_MADE in line for line in second.output)
            assert _put_secret(c, "s3cret-2") == 200
    finally:
        assert second.stop() == 0
    leftovers = subprocess.run(["pgrep", "-f", str(data_dir)], capture_output=True, text=True)
    assert leftovers.stdout.strip() == "", "embedded services must stop with the server"
