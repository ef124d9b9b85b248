"""The command line, ``python -m core ...`` (``core.cli.main``)."""
