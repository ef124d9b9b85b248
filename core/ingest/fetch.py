"""Download a filing by URL, safely: http(s) only, allowed hosts only, no private addresses.

Redirects are followed by hand so every hop is checked again (a public host redirecting to
127.0.0.1 or to another host is refused). The body is capped at settings.max_file_bytes.

A download has an overall deadline (``settings.fetch_deadline_s``) besides the per-read
timeout: a server trickling a byte now and then never trips a read timeout, so a watchdog shuts
the connection's socket when the deadline passes, and every hop's timeouts are cut to the time
left.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ipaddress
import socket
import threading
import time
from urllib.parse import unquote, urljoin, urlsplit

import httpx

from core.foundation.config import Settings
from core.foundation.errors import FetchError
from core.ingest.meta import safe_file_name

MAX_REDIRECTS = 5
_DNS_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="dns")


class UnreachableError(FetchError):
    """The host did not answer at all (name lookup, connection, no reply): ``host`` names it."""

    def __init__(self, host: str, why: object):
        self.host = host
        self.why = " ".join(str(why).split())
        super().__init__(
            f"Could not reach {host}: {self.why}. Check the network connection, or download "
            "the file in a browser and upload it instead."
        )


def _unreachable(host: str, why: object) -> FetchError:
    return UnreachableError(host, why)


def _resolve(host: str, port: int, timeout: float) -> list[str]:
    """IP addresses of host, failing fast (getaddrinfo itself has no timeout)."""
    future = _DNS_POOL.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=timeout)
    except concurrent.futures.TimeoutError as exc:
        raise _unreachable(host, f"name lookup timed out after {timeout:g} s") from exc
    except OSError as exc:
        raise _unreachable(host, f"name lookup failed ({exc})") from exc
    return [str(info[4][0]) for info in infos]


def _is_private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def check_url(url: str, settings: Settings) -> str:
    """Validate one URL (scheme, host allow-list, resolved addresses); return its host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"Only http(s) URLs can be ingested, not '{parts.scheme or url}'.")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise FetchError(f"The URL '{url}' has no host name.")
    allowed = {h.lower() for h in settings.allowed_fetch_hosts}
    if host not in allowed:
        raise FetchError(
            f"Downloading from '{host}' is not allowed (allowed: {', '.join(sorted(allowed))}). "
            "Add the host to DTR_ALLOWED_FETCH_HOSTS or download the file and upload it."
        )
    if not settings.allow_private_fetch:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        timeout = min(settings.fetch_timeout_s, 10.0)
        bad = [a for a in _resolve(host, port, timeout) if _is_private(a)]
        if bad:
            raise FetchError(
                f"'{host}' resolves to a private or loopback address ({bad[0]}); "
                "such downloads are refused."
            )
    return host


def _status_error(url: str, response: httpx.Response) -> FetchError:
    code = response.status_code
    head = f"{url} returned HTTP {code} {response.reason_phrase}"
    if code == 404:
        return FetchError(f"{head}: the document does not exist there; check the URL.")
    if code == 403:
        return FetchError(
            f"{head}: EDGAR refuses requests without a descriptive User-Agent; set "
            "DTR_SEC_USER_AGENT to 'Your Name your@email.com' (or download and upload the file)."
        )
    if code == 429:
        return FetchError(f"{head}: too many requests; wait a minute and try again.")
    return FetchError(f"{head}. Try again later or download the file and upload it.")


def _too_slow(host: str, settings: Settings) -> FetchError:
    return FetchError(
        f"The download from {host} did not finish within {settings.fetch_deadline_s:g} s "
        "(DTR_FETCH_DEADLINE_S): the server is sending too slowly. Try again later, or download "
        "the file in a browser and upload it."
    )


@contextlib.contextmanager
def _watchdog(response: httpx.Response, deadline: float):
    """Shut the response's socket at ``deadline`` (wakes a read blocked on a trickle); yields
    an Event that is set when it fired."""
    fired = threading.Event()
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None

    def fire() -> None:
        fired.set()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), fire)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()


def _read_capped(response: httpx.Response, settings: Settings, deadline: float,
                 host: str) -> bytes:
    limit = settings.max_file_bytes
    too_big = FetchError(
        f"The download is larger than the {settings.max_file_mb:g} MiB limit; raise "
        "DTR_MAX_FILE_MB to accept it."
    )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_big
    chunks: list[bytes] = []
    size = 0
    with _watchdog(response, deadline) as fired:
        try:
            for part in response.iter_bytes():
                if fired.is_set() or time.monotonic() > deadline:
                    raise _too_slow(host, settings)
                size += len(part)
                if size > limit:
                    raise too_big
                chunks.append(part)
        except httpx.HTTPError:
            if fired.is_set():
                raise _too_slow(host, settings) from None
            raise
        if fired.is_set():  # the shut socket may read as a clean (short) end
            raise _too_slow(host, settings)
    return b"".join(chunks)


def file_name_from_url(url: str) -> str:
    """The last path segment, decoded and sanitised ("document" when there is none)."""
    return safe_file_name(unquote(urlsplit(url).path.rsplit("/", 1)[-1]))


def fetch_url(url: str, settings: Settings) -> tuple[bytes, str]:
    """Download ``url`` and return (bytes, file name). Raises FetchError with what to do."""
    deadline = time.monotonic() + settings.fetch_deadline_s
    headers = {"User-Agent": settings.sec_user_agent, "Accept-Encoding": "gzip, deflate"}
    current = url.strip()
    with httpx.Client(headers=headers, follow_redirects=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            host = check_url(current, settings)
            left = deadline - time.monotonic()
            if left <= 0:
                raise _too_slow(host, settings)
            wait = min(settings.fetch_timeout_s, left)
            timeout = httpx.Timeout(wait, connect=min(wait, 10.0))
            try:
                with client.stream("GET", current, timeout=timeout) as response:
                    if response.is_redirect:
                        target = response.headers.get("location", "")
                        if not target:
                            raise FetchError(f"{current} redirected without a Location header.")
                        current = urljoin(current, target)
                        continue
                    if response.status_code >= 400:
                        raise _status_error(current, response)
                    body = _read_capped(response, settings, deadline, host)
                    return body, file_name_from_url(current)
            except httpx.TimeoutException as exc:
                if time.monotonic() >= deadline:
                    raise _too_slow(host, settings) from None
                raise _unreachable(
                    host, f"no answer within {settings.fetch_timeout_s:g} s ({exc!r})"
                ) from exc
            except httpx.TransportError as exc:
                raise _unreachable(host, exc) from exc
            except httpx.HTTPError as exc:
                raise FetchError(f"Downloading from {host} failed: {exc}") from exc
    raise FetchError(f"{url} redirected more than {MAX_REDIRECTS} times; giving up.")
