"""A throwaway PostgreSQL for tests: the distribution's server binaries, a cluster in a temporary
folder, listening on a free loopback port, run as an unprivileged user (PostgreSQL refuses root),
stopped and deleted at the end.

Tests import the fixtures ``pg_cluster`` (one per test session) and ``pg_url`` (an empty database for
each test). Without PostgreSQL's binaries or psycopg they skip, saying what to install; ``.ci/run``
installs both.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

UNPRIVILEGED = ("riverse-pg", "nobody")
USER = "riverse"
DATABASE = "riverse_test"


def server_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``postgres``: ``pg_config --bindir``, else the newest
    /usr/lib/postgresql/*/bin."""
    candidates = []
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if found:
            candidates.append(Path(found))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]),
                                           reverse=True)]
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "postgres").exists():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One running PostgreSQL server; :attr:`url` reaches its test database with a password."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.password = secrets.token_urlsafe(12)
        self.port = _free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="riverse-pg-"))
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            account = next(a for a in UNPRIVILEGED if _exists(a))
            entry = pwd.getpwnam(account)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            self.as_user = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--"]
        self.data = self.folder / "data"
        self.process: subprocess.Popen | None = None

    def url_for(self, database: str, password: str | None = None) -> str:
        return f"postgresql://{USER}:{password or self.password}@127.0.0.1:{self.port}/{database}"

    @property
    def url(self) -> str:
        return self.url_for(DATABASE)

    def start(self) -> None:
        pwfile = self.folder / "pw"
        pwfile.write_text(self.password)
        if self.as_user:
            os.chown(pwfile, *_ids(self.folder))
        self._run([str(self.bindir / "initdb"), "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}",
                   "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        pwfile.unlink()
        self.process = subprocess.Popen(
            [*self.as_user, str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port),
             "-h", "127.0.0.1", "-k", str(self.folder), "-c", "fsync=off", "-c", "max_connections=200"],
            stdout=subprocess.DEVNULL, stderr=open(self.folder / "log", "wb"), start_new_session=True,
        )
        self._wait_ready()
        import psycopg

        with psycopg.connect(self.url_for("postgres"), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {DATABASE}")

    def _run(self, command: list[str]) -> None:
        done = subprocess.run([*self.as_user, *command], capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.strip() or done.stdout.strip()}")

    def _wait_ready(self, deadline_s: float = 30.0) -> None:
        import psycopg

        deadline = time.monotonic() + deadline_s
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"postgres exited: {(self.folder / 'log').read_text(errors='replace')[-800:]}")
            try:
                psycopg.connect(self.url_for("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                _pause(0.05)

    def reset(self) -> None:
        """Empty the test database: a fresh schema, as if nothing had ever been stored."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute("DROP SCHEMA public CASCADE")
            connection.execute("CREATE SCHEMA public")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown: running clients are disconnected
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


def _pause(seconds: float) -> None:
    import threading

    threading.Event().wait(seconds)


def _exists(account: str) -> bool:
    try:
        pwd.getpwnam(account)
    except KeyError:
        return False
    return True


def _ids(folder: Path) -> tuple[int, int]:
    st = folder.stat()
    return st.st_uid, st.st_gid


def skip_reason() -> str | None:
    """Why the PostgreSQL tests cannot run here (None: they can)."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed: pip install -e '.[dev]' (or '.[postgres]')"
    if server_binaries() is None:
        return ("no PostgreSQL server binaries (pg_config --bindir, /usr/lib/postgresql/*/bin): "
                "apt-get install postgresql (.ci/run does)")
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        return "running as root without setpriv: PostgreSQL must run as an unprivileged user"
    return None


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    cluster = Cluster(server_binaries())  # type: ignore[arg-type]
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """The address of an empty PostgreSQL database for this test."""
    pg_cluster.reset()
    return pg_cluster.url
