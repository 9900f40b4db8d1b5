"""Static shapes (`tf.TensorShape`, `tf.Dimension`) with TF1 semantics: unknown dims are None."""


class Dimension:
    """One dimension of a TensorShape; its value is an int or None (unknown)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value._value
        if value is not None:
            if hasattr(value, "as_datatype_enum"):  # a DType is no dimension
                raise TypeError(f"Cannot convert {value} to Dimension")
            if hasattr(value, "__index__"):
                v = int(value.__index__())
            else:
                # As TF 1.15: int() of the value ("12", 24.0 / 2), refusing a value int()
                # changes (12.99: "Ambiguous dimension").
                try:
                    v = int(value)
                except TypeError:
                    raise TypeError(
                        f"Dimension value must be integer or None or have an __index__ "
                        f"method, got value '{value!r}' with type '{type(value)}'") from None
                if not isinstance(value, (str, bytes)) and v != value:
                    raise ValueError(f"Ambiguous dimension: {value}")
            if v < 0:
                raise ValueError(f"Dimension {v} must be >= 0")
            value = v
        self._value = value

    def __reduce__(self):
        return Dimension, (self._value,)

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is None or r is NotImplemented else not r

    def __hash__(self):
        return hash(self._value)

    def __bool__(self):
        return self._value is not None and self._value != 0 or self._value is None

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    def _arith(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented  # (a TensorShape on the right concatenates: its __radd__)
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def _rarith(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return other._arith(self, fn)

    def __add__(self, o):
        return self._arith(o, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, o):
        return self._arith(o, lambda a, b: a - b)

    def __rsub__(self, o):
        return self._rarith(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._arith(o, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        return self._arith(o, lambda a, b: a // b)

    def __rfloordiv__(self, o):
        return self._rarith(o, lambda a, b: a // b)

    def __mod__(self, o):
        return self._arith(o, lambda a, b: a % b)

    def __rmod__(self, o):
        return self._rarith(o, lambda a, b: a % b)

    def __truediv__(self, o):
        raise TypeError("unsupported operand type(s) for /: 'Dimension' and "
                        f"'{type(o).__name__}', please use // instead")

    def __rtruediv__(self, o):
        raise TypeError(f"unsupported operand type(s) for /: '{type(o).__name__}' and "
                        "'Dimension', please use // instead")

    def __lt__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o._value is None else self._value < o._value

    def __le__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o._value is None else self._value <= o._value

    def __gt__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o._value is None else self._value > o._value

    def __ge__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o._value is None else self._value >= o._value


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """The static shape of a tensor: unknown rank (dims None) or a list of Dimensions."""

    __slots__ = ("_dims",)
    _v2_behavior = False  # TF 1.15's: dims index as Dimensions, unknown ones print as ?

    def __init__(self, dims):
        if dims is None:
            self._dims = None
            return
        cls = type(dims)
        if cls is tuple or cls is list:
            # Non-negative ints and None (array shapes, most literals): nothing to convert.
            for d in dims:
                if d is not None and (type(d) is not int or d < 0):
                    break
            else:
                self._dims = tuple(dims)
                return
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError("A string has ambiguous TensorShape, please wrap in a list or "
                            f"convert to an int: {dims}")
        else:
            if hasattr(dims, "dim") and hasattr(dims, "unknown_rank"):  # TensorShapeProto
                self._dims = None if dims.unknown_rank else tuple(
                    None if d.size == -1 else d.size for d in dims.dim)
                return
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (dimension_value(as_dimension(dims)),)
                return
            self._dims = tuple(as_dimension(d)._value for d in it)

    @classmethod
    def _from_values(cls, values):
        s = cls.__new__(cls)
        s._dims = values
        return s

    # -- views --------------------------------------------------------------
    @property
    def dims(self):
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_proto(self):
        from flowloom.proto import tensor_shape_pb2

        p = tensor_shape_pb2.TensorShapeProto()
        if self._dims is None:
            p.unknown_rank = True
        else:
            for d in self._dims:
                p.dim.add(size=-1 if d is None else d)
        return p

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(Dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return unknown_shape()
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape._from_values(self._dims[key])
        return Dimension(self._dims[key])

    def __bool__(self):
        return self._dims is not None

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([%s])" % ", ".join(repr(Dimension(d)) for d in self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % ("?" if self._dims[0] is None else self._dims[0])
        return "(%s)" % ", ".join("?" if d is None else str(d) for d in self._dims)

    def __eq__(self, other):
        """True if `self` is equivalent to `other`: TF compares lists of Dimensions, where an
        unknown dimension equals only itself, so [None, 37] equals a shape that shares its
        dimensions (the same shape, `TensorShape(s)`, `as_shape(s)`) and no other."""
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return _same_dims(self._dims, other._dims)

    def __ne__(self, other):
        """True if `self` is known to differ from `other` (ValueError for an unknown rank)."""
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._dims is None or other._dims is None:
            raise ValueError("The inequality of unknown TensorShapes is undefined.")
        return not _same_dims(self._dims, other._dims)

    def __hash__(self):
        return hash(self._dims)

    def __reduce__(self):
        return TensorShape, (self.dims,)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    # -- algebra ------------------------------------------------------------
    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape._from_values(
            tuple(a if a is not None else b for a, b in zip(self._dims, other._dims)))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape._from_values(
            tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape._from_values(self._dims + other._dims)

    def assert_same_rank(self, other):
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self.ndims is not None and other.ndims is not None and self.ndims != other.ndims:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        if self._dims is None:
            return unknown_shape(rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")


def unknown_shape(rank=None):
    if rank is None:
        return TensorShape._from_values(None)
    return TensorShape._from_values((None,) * rank)


def scalar():
    return TensorShape._from_values(())


def _same_dims(a, b):
    if a is b:
        return True
    if a is None or b is None or len(a) != len(b):
        return False
    return all(x is not None and x == y for x, y in zip(a, b))


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


# Shapes are immutable, so graphs can share one object per distinct shape: tensors keep the
# interned copy (a graph of 100,000 ops holds a few hundred shapes, not 100,000 GC-tracked
# objects). Bounded: past the limit a shape is kept as it is.
_interned = {}


def interned(shape):
    """The one shared TensorShape equal to `shape` (a TensorShape)."""
    dims = shape._dims
    got = _interned.get(dims)
    if got is None:
        if len(_interned) >= 4096:
            return shape
        got = _interned[dims] = shape
    return got
