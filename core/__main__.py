"""`python -m core ...`: see core/cli/main.py."""

import sys
import time

STARTED_AT = time.time()  # before the imports: DTR_MAX_WALL_S counts the command's start-up

from core.cli.main import QUICK_EXIT, end_process, main  # noqa: E402

if __name__ == "__main__":  # guarded: PDF extraction spawns worker processes
    code = main(started_at=STARTED_AT)
    if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT:
        end_process(code)
    sys.exit(code)
