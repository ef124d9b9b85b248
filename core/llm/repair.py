"""Pure functions that turn an almost-JSON LLM reply into a JSON object.

Small local models (and some large ones) wrap JSON in code fences, prepend a
``<think>...</think>`` block, add a sentence before or after, or leave trailing
commas. ``extract_json_object`` undoes those habits and returns a ``dict``;
``parse_model`` then validates it against a pydantic schema.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class RepairError(ValueError):
    """The text holds no JSON object that could be recovered."""


def strip_think(text: str) -> str:
    """Remove ``<think>...</think>`` (also thinking/reasoning) blocks, even unclosed ones."""
    return _THINK.sub("", text)


def strip_code_fences(text: str) -> str:
    """Return the body of the first fenced block that looks like JSON, else the text."""
    blocks = _FENCE.findall(text)
    for lang, body in blocks:
        if lang.lower() in ("json", "json5", "") and body.strip().startswith(("{", "[")):
            return body.strip()
    if blocks:
        return blocks[0][1].strip()
    # An opening fence without a closing one (reply cut off or sloppy).
    opened = re.match(r"\s*```[A-Za-z0-9_-]*\s*\n(.*)$", text, re.DOTALL)
    return opened.group(1) if opened else text


def remove_trailing_commas(text: str) -> str:
    """Drop commas directly before ``}`` or ``]`` outside strings."""
    out: list[str] = []
    in_string = False
    escaped = False
    for i, ch in enumerate(text):
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch == "," and _TRAILING_COMMA.match(text, i):
            continue
        out.append(ch)
    return "".join(out)


def find_object_span(text: str) -> str:
    """Return the first balanced top-level ``{...}`` in ``text`` (string-aware).

    Raises ``RepairError`` when there is no ``{`` or it is never closed.
    """
    start = text.find("{")
    if start < 0:
        raise RepairError("no JSON object found in the reply")
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    raise RepairError("the JSON object in the reply is not closed (truncated output?)")


def extract_json_object(text: str) -> dict[str, Any]:
    """Recover one JSON object from an almost-JSON reply, or raise ``RepairError``."""
    if not isinstance(text, str) or not text.strip():
        raise RepairError("the reply is empty")
    cleaned = strip_code_fences(strip_think(text)).strip()
    try:
        value = json.loads(cleaned)
        if isinstance(value, dict):
            return value
    except json.JSONDecodeError:
        pass
    span = remove_trailing_commas(find_object_span(cleaned))
    try:
        value = json.loads(span)
    except json.JSONDecodeError as exc:
        raise RepairError(f"the JSON object in the reply is invalid: {exc.msg}") from exc
    if not isinstance(value, dict):  # pragma: no cover - find_object_span returns {...}
        raise RepairError("the reply's JSON is not an object")
    return value


def parse_model(data: str | dict[str, Any], schema: type[M]) -> M:
    """Validate a dict (or repaired text) against ``schema``.

    Raises ``RepairError`` (a ``ValueError``) with a short message for either a
    missing object or a schema mismatch, so callers can retry on both.
    """
    obj = extract_json_object(data) if isinstance(data, str) else data
    try:
        return schema.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise RepairError(f"the JSON does not match {schema.__name__}: {problems}") from exc
