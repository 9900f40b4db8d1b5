"""A stand-in object that accepts any attribute, call, index or context use and does nothing.

The corpus programs plot with matplotlib; plotting is no part of what the corpus judges, and the
machines that run it have no display, so both runs (TF and flowloom) see this stand-in.
"""


class Anything:
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
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
    """(figure, axes) with axes shaped as matplotlib shapes them (squeezed like squeeze=True)."""
    if nrows == 1 and ncols == 1:
        return Anything(), Anything()
    if nrows == 1 or ncols == 1:
        return Anything(), [Anything() for _ in range(nrows * ncols)]
    return Anything(), [[Anything() for _ in range(ncols)] for _ in range(nrows)]
