"""Per-op statistics (TF's `ops.OpStats`, `ops.RegisterStatistics`): functions registered per
(op type, statistic) that estimate e.g. an op's flops from its graph and NodeDef."""

_STATISTICS = {}  # (op type, statistic type) -> fn(graph, node_def) -> OpStats


class OpStats:
    """A statistic of an op (or a sum of them): its type and a value (None: unknown).

    Example:
      total = tf.OpStats("flops")
      total += tf.OpStats("flops", 20)   # total.value == 20
    """

    def __init__(self, statistic_type, value=None):
        self.statistic_type = statistic_type
        self.value = value

    @property
    def statistic_type(self):
        return self._statistic_type

    @statistic_type.setter
    def statistic_type(self, statistic_type):
        self._statistic_type = statistic_type

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, value):
        self._value = value

    def __iadd__(self, other):
        if other.statistic_type != self.statistic_type:
            raise ValueError(f"Can't add an OpStat of type {other.statistic_type} to one of "
                             f"{self.statistic_type}.")
        if self.value is None:
            self.value = other.value
        elif other.value is not None:
            self._value += other.value
        return self


class RegisterStatistics:
    """Decorator registering `fn(graph, node_def) -> OpStats` for an op type and statistic.

    Raises:
      TypeError: the op type or statistic type is not a string.
      KeyError: a function is already registered for the pair.
    """

    def __init__(self, op_type, statistic_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string.")
        if "," in op_type:
            raise TypeError("op_type must not contain a comma.")
        if not isinstance(statistic_type, str):
            raise TypeError("statistic_type must be a string.")
        if "," in statistic_type:
            raise TypeError("statistic_type must not contain a comma.")
        self._key = (op_type, statistic_type)

    def __call__(self, fn):
        if self._key in _STATISTICS:
            raise KeyError(f"Registering two statistic functions with the same name: "
                           f"{','.join(self._key)}")
        _STATISTICS[self._key] = fn
        return fn


def get_stats_for_node_def(graph, node, statistic_type):
    """The `statistic_type` OpStats of NodeDef `node` in `graph` (value None when no function
    is registered for its op type)."""
    fn = _STATISTICS.get((node.op, statistic_type))
    if fn is None:
        return OpStats(statistic_type)
    return fn(graph, node)
