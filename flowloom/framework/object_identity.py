"""`Tensor.experimental_ref()`: a hashable reference that compares by object identity.

A Tensor's `==` builds no op in TF 1.15 graph mode but its hash is its id; Reference wraps
any object so that sets and dicts key on the object itself, and deref() returns it.
"""


class Reference:
    """Wraps an object; equal to another Reference of the very same object."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        """The wrapped object."""
        return self._wrapped

    def __eq__(self, other):
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return f"<Reference wrapping {self._wrapped!r}>"
