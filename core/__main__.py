"""`python -m core ...`: see core/cli.py."""

import sys

from core.cli import main

if __name__ == "__main__":  # guarded: PDF extraction spawns worker processes
    sys.exit(main())
