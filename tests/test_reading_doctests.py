"""The reading package's docstring examples run as tests (they are its documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import core.reading

MODULES = [m.name for m in pkgutil.iter_modules(core.reading.__path__, "core.reading.")]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} example(s) failed"


def test_the_examples_exist():
    counts = {n: doctest.DocTestFinder().find(importlib.import_module(n)) for n in MODULES}
    assert sum(len(t.examples) for tests in counts.values() for t in tests) >= 6
