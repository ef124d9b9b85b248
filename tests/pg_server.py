"""A real PostgreSQL (Debian's packages) on 127.0.0.1 for the team-mode tests.

``initdb`` into a fresh folder, ``pg_ctl start`` on a free port, trust authentication on
127.0.0.1 only; run as the ``postgres`` user when the tests run as root (postgres refuses
root). Tests skip with the reason when no PostgreSQL binaries can be found
(``scripts/ensure_postgres.sh`` installs them).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    which = shutil.which("pg_ctl")
    return Path(which).resolve().parent if which else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """One PostgreSQL cluster in a temp folder; ``stop()`` / ``start()`` keep its data."""

    def __init__(self):
        self.bin = _bin_dir()
        if self.bin is None:
            pytest.skip("PostgreSQL is not installed (scripts/ensure_postgres.sh installs it)")
        self.as_user = "postgres" if os.geteuid() == 0 else None
        if self.as_user:
            try:
                pwd.getpwnam(self.as_user)
            except KeyError:
                pytest.skip("PostgreSQL refuses to run as root and there is no 'postgres' user")
        self.root = Path(tempfile.mkdtemp(prefix="dtr-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        if self.as_user:
            shutil.chown(self.root, self.as_user)
        self._run("initdb", "-D", str(self.data), "-U", "dtr", "--auth=trust", "-E", "UTF8",
                  "--no-sync")

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if self.as_user:
            cmd = ["runuser", "-u", self.as_user, "--", *cmd]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            pytest.fail(f"{tool} failed: {out.stderr[-1500:]}")

    def start(self) -> None:
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c full_page_writes=off -c max_connections=60")
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"),
                  "-w", "-t", "300", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "300", "stop")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://dtr@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A fresh empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except BaseException:  # noqa: BLE001 - already stopped
            pass
        shutil.rmtree(self.root, ignore_errors=True)
