"""Shared fixtures of the Python tests: the repository, the commsim program (COMMSIM_BINARY, set
by CTest), and the package under scenarios/python on sys.path (as the README's PYTHONPATH)."""

import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scenarios" / "python"))


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def commsim_binary() -> str:
    import commsim

    return commsim.binary()


@pytest.fixture(scope="session")
def allreduce(repo) -> str:
    return str(repo / "scenarios" / "examples" / "allreduce_h200x4.toml")
