"""Support the tests and the measuring scripts share, never imported by the product:
fake network services and models (``fakes``), the agent wired to them (``agent_fakes``) and
small hand-written filings (``corpus``). Only tests/ and scripts/ import it."""
