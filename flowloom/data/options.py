"""`tf.data.Options` and its parts (tf.data.experimental.OptimizationOptions,
ThreadingOptions, StatsOptions, DistributeOptions, MapVectorizationOptions), with TF 1.15's
fields, types and merge rules.

    options = tf.data.Options()
    options.experimental_optimization.map_fusion = True
    dataset = dataset.with_options(options)

flowloom keeps and merges the options as TF does; its pipelines run the same whatever they
say (it has no graph rewrites, thread pools or stats for them to switch).
"""


class _OptionsBase:
    """Options of declared fields: `_FIELDS` maps a name to (type, default factory); setting
    another name, or a value of another type, raises as TF does."""

    _FIELDS = {}

    def __init__(self):
        for name, (_, default) in self._FIELDS.items():
            object.__setattr__(self, "_" + name, default() if callable(default) else default)

    def __setattr__(self, name, value):
        field = self._FIELDS.get(name)
        if field is None:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = field[0]
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"Property \"{name}\" must be of type {kind}, got: {value!r} "
                            f"(type: {type(value)})")
        object.__setattr__(self, "_" + name, value)

    def __getattr__(self, name):
        if name in type(self)._FIELDS:
            return self.__dict__["_" + name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._FIELDS)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def _merged(self, other):
        out = type(self)()
        for name in self._FIELDS:
            a, b = getattr(self, name), getattr(other, name)
            if isinstance(a, _OptionsBase):
                value = a._merged(b)
            elif a is None or a == type(self)().__getattr__(name):
                value = b
            elif b is None or b == type(self)().__getattr__(name) or a == b:
                value = a
            else:
                raise ValueError(f"Cannot merge incompatible values ({a!r} and {b!r}) of "
                                 f"option: {name}")
            object.__setattr__(out, "_" + name, value)
        return out


def _fields(kind, *names):
    return {n: (kind, None) for n in names}


class MapVectorizationOptions(_OptionsBase):
    """`experimental_optimization.map_vectorization`: `enabled`, `use_choose_fastest`."""

    _FIELDS = _fields(bool, "enabled", "use_choose_fastest")


class OptimizationOptions(_OptionsBase):
    """`Options.experimental_optimization`: which of TF's static dataset rewrites to apply
    (flowloom has none of them: the fields are kept, not acted on)."""

    _FIELDS = dict(
        _fields(bool, "apply_default_optimizations", "autotune", "autotune_buffers",
                "filter_fusion", "filter_with_random_uniform_fusion", "hoist_random_uniform",
                "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
                "map_parallelization", "noop_elimination", "parallel_batch",
                "shuffle_and_repeat_fusion"),
        autotune_algorithm=(object, None), autotune_cpu_budget=(int, None),
        map_vectorization=(MapVectorizationOptions, MapVectorizationOptions))

    def _static_optimizations(self):
        """The rewrites these options select, by TF's names (TF's defaults when unset)."""
        defaults = {"map_and_batch_fusion", "noop_elimination", "shuffle_and_repeat_fusion"}
        chosen = {n for n in ("filter_fusion", "filter_with_random_uniform_fusion",
                              "hoist_random_uniform", "map_and_batch_fusion",
                              "map_and_filter_fusion", "map_fusion", "map_parallelization",
                              "noop_elimination", "parallel_batch",
                              "shuffle_and_repeat_fusion") if getattr(self, n)}
        if self.map_vectorization.enabled:
            chosen.add("map_vectorization")
        if self.apply_default_optimizations is not False:
            chosen |= {n for n in defaults if getattr(self, n) is not False}
        return sorted(chosen)


class ThreadingOptions(_OptionsBase):
    """`Options.experimental_threading`: `max_intra_op_parallelism`,
    `private_threadpool_size`."""

    _FIELDS = _fields(int, "max_intra_op_parallelism", "private_threadpool_size")


class StatsOptions(_OptionsBase):
    """`Options.experimental_stats`: `aggregator`, `prefix`, `counter_prefix`,
    `latency_all_edges`."""

    _FIELDS = {"aggregator": (object, None), "prefix": (str, ""),
               "counter_prefix": (str, ""), "latency_all_edges": (bool, None)}


class DistributeOptions(_OptionsBase):
    """`Options.experimental_distribute`: `auto_shard` (default True), `num_devices`."""

    _FIELDS = {"auto_shard": (bool, True), "num_devices": (int, None)}


class Options(_OptionsBase):
    """`tf.data.Options`: a dataset's options (`dataset.with_options(options)`), merged
    along the pipeline; a field set to two different values raises ValueError."""

    _FIELDS = {"experimental_deterministic": (bool, None),
               "experimental_distribute": (DistributeOptions, DistributeOptions),
               "experimental_optimization": (OptimizationOptions, OptimizationOptions),
               "experimental_slack": (bool, None),
               "experimental_stateful_whitelist": (list, None),
               "experimental_stats": (StatsOptions, StatsOptions),
               "experimental_threading": (ThreadingOptions, ThreadingOptions)}

    def merge(self, options):
        """These options merged with `options` (an unset field takes the other's value)."""
        return self._merged(options)
