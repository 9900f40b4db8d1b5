import pytest

import flowloom as tf


@pytest.fixture(autouse=True)
def fresh_default_graph():
    """Every test starts with an empty default graph."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
