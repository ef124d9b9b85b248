"""The walk-through's shallow RAG, the baseline the deep agent is compared with: fixed-size
pieces (``pieces``), their per-document index (``index``) and the answerer (``rag``)."""
