"""matplotlib.pyplot stand-in for the corpus runs: every function does nothing."""
from _anything import Anything, savefig, subplots  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything()
