"""matplotlib stand-in for the corpus runs (see tools/corpus/shims/_anything.py)."""
from _anything import Anything

__version__ = "0.0-corpus-stand-in"


def use(*args, **kwargs):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything()
