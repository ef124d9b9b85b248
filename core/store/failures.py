"""Short messages for store failures: one line a user can act on, never a transport traceback.

A Chroma server that goes away surfaces as httpx/httpcore/chromadb exceptions wrapping one
another; the user needs to know what happened to the corpus and what to do, in one sentence.
"""

from __future__ import annotations

_TRANSPORT = ("ConnectError", "ConnectTimeout", "ReadError", "ReadTimeout", "RemoteProtocolError",
              "WriteError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError")


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The first line of an exception's message (its class name when empty), shortened."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_transport(exc: BaseException) -> bool:
    """A connection-level failure (server down, refused, reset), by class name along the
    exception chain: httpx, httpcore and chromadb wrap each other."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__name__ in _TRANSPORT:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def add_failed(file_name: str, where: object, exc: BaseException | None,
               clean: bool = True) -> str:
    """Why adding ``file_name`` failed; ``clean`` is False when vectors wait for a purge."""
    if exc is not None and not is_transport(exc):
        return (f"Could not index {file_name}: {first_line(exc)}. The corpus is unchanged; "
                "try again.")
    why = f" ({first_line(exc)})" if exc is not None else ""
    tail = "" if clean else (" Vectors it had written will be removed when the corpus is next "
                             "opened.")
    return (f"Could not index {file_name}: the vector store at {where} stopped answering{why}. "
            f"The document was not added.{tail} Check that the Chroma server is running, then "
            "try again.")


def delete_failed(doc_id: str, where: object, exc: BaseException) -> str:
    return (f"Could not delete {doc_id}: the vector store at {where} did not answer "
            f"({first_line(exc)}). Nothing was deleted; try again once it is back.")
