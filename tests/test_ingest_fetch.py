"""fetch_url against a real local HTTP server on 127.0.0.1 (no other network)."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.foundation.config import Settings
from core.foundation.errors import FetchError
from core.ingest.fetch import check_url, fetch_url, file_name_from_url
from tests.waiting import CEILING_S

BODY = b"<html><body><p>Item 1. Business</p></body></html>"


class _Handler(BaseHTTPRequestHandler):
    seen_agents: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server API)
        type(self).seen_agents.append(self.headers.get("User-Agent", ""))
        routes = {
            "/Archives/nvda%2010-k.htm": (200, BODY, {}),
            "/hop": (302, b"", {"Location": "/Archives/nvda%2010-k.htm"}),
            "/evil-hop": (302, b"", {"Location": "http://evil.example.com/x.htm"}),
            "/big": (200, b"x" * 5000, {}),
        }
        status, body, headers = routes.get(self.path, (404, b"not here", {}))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def local(tmp_path):
    return Settings(
        data_dir=tmp_path,
        allowed_fetch_hosts=["127.0.0.1"],
        allow_private_fetch=True,
        sec_user_agent="Ingest Tests tests@example.com",
        fetch_timeout_s=5,
        _env_file=None,
    )


@pytest.mark.slow
def test_download_sends_user_agent_and_names_file(server, local):
    _Handler.seen_agents.clear()
    data, name = fetch_url(f"{server}/Archives/nvda%2010-k.htm", local)
    assert data == BODY and name == "nvda 10-k.htm"
    assert _Handler.seen_agents == ["Ingest Tests tests@example.com"]


@pytest.mark.slow
def test_redirect_followed_and_rechecked(server, local):
    data, name = fetch_url(f"{server}/hop", local)
    assert data == BODY and name == "nvda 10-k.htm"
    with pytest.raises(FetchError, match="evil.example.com' is not allowed"):
        fetch_url(f"{server}/evil-hop", local)


@pytest.mark.slow
def test_404_message(server, local):
    with pytest.raises(FetchError, match="HTTP 404 Not Found.*check the URL"):
        fetch_url(f"{server}/missing.htm", local)


@pytest.mark.slow
def test_size_cap(server, tmp_path):
    capped = Settings(
        data_dir=tmp_path,
        allowed_fetch_hosts=["127.0.0.1"],
        allow_private_fetch=True,
        max_file_mb=0.001,
        _env_file=None,
    )
    with pytest.raises(FetchError, match="DTR_MAX_FILE_MB"):
        fetch_url(f"{server}/big", capped)


def test_unreachable_port_fails_fast_with_advice(local):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(FetchError, match="Could not reach 127.0.0.1.*upload it"):
        fetch_url(f"http://127.0.0.1:{port}/x.htm", local)


def test_private_addresses_refused_outside_tests(tmp_path):
    strict = Settings(
        data_dir=tmp_path, allowed_fetch_hosts=["127.0.0.1", "[::1]", "::1"], _env_file=None
    )
    with pytest.raises(FetchError, match="private or loopback"):
        check_url("http://127.0.0.1:8000/x.htm", strict)
    with pytest.raises(FetchError, match="private or loopback"):
        check_url("http://[::1]/x.htm", strict)


@pytest.mark.parametrize(
    "url, message",
    [
        ("ftp://www.sec.gov/x.htm", "Only http"),
        ("file:///etc/passwd", "Only http"),
        ("https://evil.example.com/x.htm", "not allowed"),
        ("https://www.sec.gov@evil.example.com/x.htm", "not allowed"),
        ("http:///nohost", "no host"),
    ],
)
def test_url_checks(url, message, tmp_path):
    with pytest.raises(FetchError, match=message):
        check_url(url, Settings(data_dir=tmp_path, _env_file=None))


def test_file_name_from_url():
    assert file_name_from_url("https://www.sec.gov/Archives/edgar/data/1/a/nvda-20230129.htm") == (
        "nvda-20230129.htm"
    )
    assert file_name_from_url("https://www.sec.gov/") == "document"
    assert file_name_from_url("https://www.sec.gov/a/..%2F..%2Fetc%2Fpasswd") == "passwd"


class _Trickle(BaseHTTPRequestHandler):
    """Declares 10 kB, then sends one byte every 0.2 s: never idle long enough for a read
    timeout to fire. ``sent`` counts the bytes sent; ``hung_up`` is set when the client
    hung up before the last one."""

    sent = 0
    hung_up = threading.Event()

    def do_GET(self):  # noqa: N802 (http.server API)
        self.send_response(200)
        self.send_header("Content-Length", "10000")
        self.end_headers()
        try:
            for _ in range(10000):
                self.wfile.write(b"x")
                self.wfile.flush()
                type(self).sent += 1
                time.sleep(0.2)
        except OSError:  # the client hung up: what the deadline should cause
            type(self).hung_up.set()

    def log_message(self, *args):
        pass


def test_a_trickling_server_is_cut_off_at_the_overall_deadline(local):
    trickle = type("Trickle", (_Trickle,), {"sent": 0, "hung_up": threading.Event()})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), trickle)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:  # a read timeout far beyond the deadline: only the deadline can end the fetch
        slow = local.model_copy(update={"fetch_timeout_s": CEILING_S, "fetch_deadline_s": 1.5})
        with pytest.raises(FetchError) as err:
            fetch_url(f"http://127.0.0.1:{httpd.server_address[1]}/10k.htm", slow)
        sent = trickle.sent
        assert "did not finish within 1.5 s (DTR_FETCH_DEADLINE_S)" in str(err.value)
        assert "upload" in str(err.value)
        assert sent < 10000, sent  # cut off mid-body at the deadline, not 10 000 x 0.2 s ...
        assert trickle.hung_up.wait(CEILING_S)  # ... by hanging up on the server
    finally:
        httpd.shutdown()
        httpd.server_close()
