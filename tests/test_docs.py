"""Examples in docstrings are executed, so they stay true."""

import doctest

import simkit
import simkit.hand.api
import simkit.rules


def test_package_docstring_examples():
    for module in (simkit, simkit.rules, simkit.hand.api):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
