"""A stand-in object that accepts any attribute, call, index or context use and does nothing.

The corpus programs plot with matplotlib; plotting is no part of what the corpus judges, and the
machines that run it have no display, so both runs (TF and flowloom) see this stand-in.
"""


def _png_1x1():
    """The bytes of a valid 1x1 white RGB PNG."""
    import struct
    import zlib

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b""))


def savefig(fname, *args, **kwargs):
    """Writes a 1x1 PNG where a figure would go (programs read saved plots back as images)."""
    import os

    if hasattr(fname, "write"):
        fname.write(_png_1x1())
    elif os.path.isdir(os.path.dirname(os.path.abspath(fname))):
        # A folder the program forgot to make is no concern of the corpus: nothing is written.
        with open(fname, "wb") as f:
            f.write(_png_1x1())


class Anything:
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name == "savefig":
            return savefig
        return Anything()

    def __call__(self, *args, **kwargs):
        return Anything()

    def __getitem__(self, key):
        return Anything()

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        # `line, = plt.plot(...)` unpacks one artist.
        return iter([Anything()])

    def __len__(self):
        return 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __bool__(self):
        return True

    def __float__(self):
        return 0.0

    def __int__(self):
        return 0


def subplots(nrows=1, ncols=1, *args, **kwargs):
    """(figure, axes), the axes an object array shaped as matplotlib's (squeeze=True)."""
    import numpy as np

    if nrows == 1 and ncols == 1:
        return Anything(), Anything()
    axes = np.empty((nrows, ncols), dtype=object)
    for i in range(nrows):
        for j in range(ncols):
            axes[i, j] = Anything()
    return Anything(), axes.reshape(-1) if nrows == 1 or ncols == 1 else axes
