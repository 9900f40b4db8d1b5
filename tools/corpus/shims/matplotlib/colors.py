"""matplotlib submodule stand-in for the corpus runs."""
from _anything import Anything


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything()
