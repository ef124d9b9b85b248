"""Pure functions that turn an almost-JSON LLM reply into a JSON object.

Small local models (and some large ones) wrap JSON in code fences, prepend a
``<think>...</think>`` block, add a sentence before or after, or leave trailing
commas. ``extract_json_object`` undoes those habits and returns a ``dict``;
``parse_model`` then validates it against a pydantic schema.
"""

from __future__ import annotations

import json
import re
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin

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


def _unwrap_echo(obj: dict[str, Any], schema: type[BaseModel]) -> dict[str, Any]:
    """The values of a reply that echoed the schema back (``{"description", "properties":
    {field: value}}``): the ``properties`` object when its keys are the schema's fields."""
    props = obj.get("properties")
    fields = set(schema.model_fields)
    if not isinstance(props, dict) or fields & set(obj) or not fields & set(props):
        return obj
    out: dict[str, Any] = {}
    for key, value in props.items():
        if isinstance(value, dict) and ({"type", "description", "title"} & set(value)):
            if "value" in value:
                out[key] = value["value"]
            elif "default" in value:
                out[key] = value["default"]
            elif value.get("type") == "object" and isinstance(value.get("properties"), dict):
                out[key] = value  # a nested object echoed as well: left to the validator
            continue  # a bare schema entry carries no value
        out[key] = value
    return out


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _wants(annotation: Any, kind: type) -> bool:
    """True when ``annotation`` is ``kind`` or ``kind | None``."""
    if annotation is kind:
        return True
    args = get_args(annotation)
    return bool(args) and get_origin(annotation) in (Union, UnionType) and kind in args and all(
        a in (kind, type(None)) for a in args)


def _is_list_of_str(annotation: Any) -> bool:
    return get_origin(annotation) is list and get_args(annotation) in ((str,),)


def coerce_shapes(obj: Any, schema: type[BaseModel]) -> Any:
    """Fix the common wrong shapes small models send, field by field (recursively).

    A string field sent as a list of strings is joined; a list-of-strings field sent
    as one string becomes a one-item list; a schema echoed back is unwrapped.
    """
    if not isinstance(obj, dict):
        return obj
    obj = _unwrap_echo(obj, schema)
    out = dict(obj)
    for name, info in schema.model_fields.items():
        if name not in out:
            continue
        value, ann = out[name], info.annotation
        if _wants(ann, str) and isinstance(value, list) and all(
                isinstance(v, str | int | float) for v in value):
            out[name] = " ".join(str(v).strip() for v in value if str(v).strip())
        elif _is_list_of_str(ann) and isinstance(value, str):
            out[name] = [value] if value.strip() else []
        elif (sub := _model_of(ann)) is not None:
            if isinstance(value, list):
                out[name] = [coerce_shapes(v, sub) for v in value]
            elif isinstance(value, dict):
                out[name] = coerce_shapes(value, sub)
    return out


def _problems(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        got = "" if err["type"] == "missing" else f" (got {_short(err.get('input'))})"
        parts.append(f"{where}: {err['msg']}{got}")
    return "; ".join(parts)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_model(data: str | dict[str, Any], schema: type[M]) -> M:
    """Validate a dict (or repaired text) against ``schema``, fixing common shapes first
    if it does not validate as sent (``coerce_shapes``).

    Raises ``RepairError`` (a ``ValueError``) with a short message for either a
    missing object or a schema mismatch (naming each field, what it needs and what
    came), so callers can retry on both and the retry can say what to fix.
    """
    obj = extract_json_object(data) if isinstance(data, str) else data
    try:
        return schema.model_validate(obj)
    except ValidationError as exc:
        first = exc
    try:
        return schema.model_validate(coerce_shapes(obj, schema))
    except ValidationError:
        pass
    raise RepairError(f"the JSON does not match {schema.__name__}: {_problems(first)}") from first
