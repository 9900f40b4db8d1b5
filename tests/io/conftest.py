import os

import pytest

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@pytest.fixture
def data_path():
    """Returns the path of a reference file recorded with real TF."""
    return lambda *parts: os.path.join(DATA_DIR, *parts)
