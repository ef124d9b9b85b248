"""`python -m core ...`: see core/cli/main.py."""

import sys

from core.cli.main import main

if __name__ == "__main__":  # guarded: PDF extraction spawns worker processes
    sys.exit(main())
