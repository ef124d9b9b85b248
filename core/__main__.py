"""`python -m core ...`: see core/cli/main.py."""

import sys
import time

STARTED_AT = time.time()  # before the imports: DTR_MAX_WALL_S counts the command's start-up

from core.cli.main import main  # noqa: E402

if __name__ == "__main__":  # guarded: PDF extraction spawns worker processes
    sys.exit(main(started_at=STARTED_AT))
