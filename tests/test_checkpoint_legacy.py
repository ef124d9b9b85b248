"""Checkpoints written before core was layered name the records' old modules
(``core.types``); they still load as records, so a plan paused before an upgrade resumes."""

import ormsgpack
from langgraph.checkpoint.serde.jsonplus import EXT_PYDANTIC_V2

from core.app.checkpointing import open_checkpointer, state_types
from core.foundation.types import Chunk
from core.store.checkpoints import close_checkpointer, serializer


def _old_blob(chunk: Chunk) -> bytes:
    """What the serializer wrote when Chunk lived in ``core.types``."""
    payload = ormsgpack.packb(["core.types", "Chunk", chunk.model_dump(), "model_validate_json"])
    return ormsgpack.packb({"hits": [ormsgpack.Ext(EXT_PYDANTIC_V2, payload)]})


def test_a_record_under_its_old_module_name_loads_as_the_record(settings):
    chunk = Chunk(chunk_id="d@0", doc_id="d", index=0, text="Revenue rose.", section="Item 7",
                  start=0, end=13)
    saver = open_checkpointer(settings)  # the app's path: old module names resolve
    try:
        back = saver.serde.loads_typed(("msgpack", _old_blob(chunk)))
    finally:
        close_checkpointer(saver)
    assert back["hits"] == [chunk]


def test_the_allow_list_names_both_the_old_and_the_new_module():
    types = state_types()
    assert ("core.foundation.types", "Chunk") in types and ("core.types", "Chunk") in types
    serde = serializer(types)
    chunk = Chunk(chunk_id="d@1", doc_id="d", index=1, text="x", section="s", start=0, end=1)
    assert serde.loads_typed(serde.dumps_typed({"c": chunk}))["c"] == chunk
