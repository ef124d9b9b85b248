"""Worker for parallel PDF text extraction: ``python -m core.ingest.pdf_worker PDF START STOP``.

Prints a JSON list of ``[text, layout_mode]`` for pages START..STOP-1 (0-based). A plain
subprocess rather than multiprocessing: spawn would re-import the parent's ``__main__``
(under Streamlit that is the whole app, models included).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from core.ingest.pdf import extract_range

    path, start, stop = argv[0], int(argv[1]), int(argv[2])
    json.dump(extract_range(Path(path).read_bytes(), start, stop), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
