"""Device names: `DeviceSpec`, merging of partial specs, and the device-function stack.

A device name is `/job:<name>/replica:<n>/task:<n>/device:<TYPE>:<n>`; every part is
optional. `tf.device` scopes nest by merging: the outer spec is the base and the fields the
inner one sets override it, so `/job:worker` around `/cpu:0` gives `/job:worker/device:CPU:0`.
"""


class DeviceSpec:
    """A (possibly partial) device name.

    Example:
      spec = tf.DeviceSpec.from_string("/job:worker/cpu:0")
      spec.to_string()   # '/job:worker/device:CPU:0'
    """

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        if device_type is not None and device_type.lower() in ("cpu", "gpu"):
            device_type = device_type.upper()
        self.device_type = device_type
        self.device_index = None if device_index in (None, "*") else int(device_index)

    @classmethod
    def from_string(cls, spec):
        """Parses `/job:w/replica:0/task:1/device:GPU:2` (or `/cpu:0`, `gpu:1`, `CPU:*`).

        Raises:
          ValueError: an unknown field or two device types in one name.
        """
        if isinstance(spec, DeviceSpec):
            return spec
        fields = {}
        for part in (spec or "").split("/"):
            if not part:
                continue
            key, _, val = part.partition(":")
            lk = key.lower()
            if lk in ("job", "replica", "task") and val:
                fields[lk] = val
                continue
            explicit = lk == "device"
            if explicit:
                key, _, val = val.partition(":")
                lk = key.lower()
            if key and (explicit or lk in ("cpu", "gpu")):
                if "device_type" in fields:
                    raise ValueError(f"Cannot specify multiple device types: {spec}")
                fields["device_type"] = key
                fields["device_index"] = None if val in ("", "*") else int(val)
                continue
            raise ValueError(f"Unknown attribute: '{key}' in '{spec}'")
        return cls(**fields)

    def parse_from_string(self, spec):
        """Sets this spec's fields from `spec`; returns self (TF1's mutable DeviceSpec)."""
        parsed = DeviceSpec.from_string(spec)
        for f in DeviceSpec.__slots__:
            setattr(self, f, getattr(parsed, f))
        return self

    def make_merged_spec(self, dev):
        """Returns a new spec: this one with every field that `dev` sets overriding it."""
        dev = DeviceSpec.from_string(dev)
        return type(self)(*[getattr(dev, f) if getattr(dev, f) is not None else getattr(self, f)
                            for f in DeviceSpec.__slots__])

    def merge_from(self, dev):
        merged = self.make_merged_spec(dev)
        for f in DeviceSpec.__slots__:
            setattr(self, f, getattr(merged, f))

    def replace(self, **kwargs):
        fields = {f: getattr(self, f) for f in DeviceSpec.__slots__}
        fields.update(kwargs)
        return type(self)(**fields)

    def to_string(self):
        s = ""
        if self.job is not None:
            s += "/job:" + self.job
        if self.replica is not None:
            s += "/replica:%d" % self.replica
        if self.task is not None:
            s += "/task:%d" % self.task
        if self.device_type is not None:
            idx = "*" if self.device_index is None else str(self.device_index)
            s += "/device:%s:%s" % (self.device_type, idx)
        return s

    @property
    def is_empty(self):
        return all(getattr(self, f) is None for f in DeviceSpec.__slots__)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<DeviceSpec '{self.to_string()}'>"

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())


DeviceSpecV1 = DeviceSpec


class DeviceSpecV2(DeviceSpec):
    """TF2's DeviceSpec: immutable; `replace` and `make_merged_spec` return new specs."""

    __slots__ = ()

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        spec = DeviceSpec(job, replica, task, device_type, device_index)
        for f in DeviceSpec.__slots__:
            object.__setattr__(self, f, getattr(spec, f))

    def __setattr__(self, name, value):
        raise AttributeError(f"DeviceSpecV2 is immutable: cannot set '{name}'")

    def parse_from_string(self, spec):
        """A new DeviceSpecV2 parsed from `spec` (this one is immutable and unchanged, as in
        TF: `DeviceSpecV2.from_string` is the recommended spelling)."""
        return type(self).from_string(spec)

    def merge_from(self, dev):
        raise AttributeError("DeviceSpecV2 is immutable: use make_merged_spec")


def check_valid(spec):
    """Raises ValueError when `spec` is not a valid device name (TF's `device.check_valid`)."""
    DeviceSpec.from_string(spec)


def canonical_name(device):
    """`/cpu:0` → `/device:CPU:0`; '' and None → ''."""
    if device is None:
        return ""
    return DeviceSpec.from_string(device).to_string()


def _as_device_string(value):
    # A device function's result: a DeviceSpec is written out, a string is kept as the user
    # wrote it (TF does not canonicalise what a function returns).
    if isinstance(value, DeviceSpec):
        return value.to_string()
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"Expected binary or unicode string, got {value!r}")
    return value


class MergeDevice:
    """The device function of `tf.device(string or DeviceSpec)`: merges its spec underneath
    the device that inner scopes already chose."""

    # site, display_name: where and as what the user gave it (Graph.device; op_metadata).
    __slots__ = ("spec", "_cache", "site", "display_name")

    def __init__(self, spec):
        self.spec = DeviceSpec.from_string(spec)
        self._cache = {}
        self.site = None
        self.display_name = spec if isinstance(spec, str) else self.spec.to_string()

    @property
    def is_null_merge(self):
        return self.spec.is_empty

    def __call__(self, op, current=None):
        if current is None:  # TF's one-argument form: merge into the op's (or NodeDef's) device
            current = op.device or ""
        result = self._cache.get(current)
        if result is None:
            result = self.spec.make_merged_spec(DeviceSpec.from_string(current)).to_string()
            self._cache[current] = result
        return result


class UserDeviceFunction:
    """`tf.device(fn)`: `fn(op)` sees the op with the device inner scopes gave it and returns
    the device (string or DeviceSpec) that replaces it."""

    __slots__ = ("fn", "site", "display_name")
    is_null_merge = False

    def __init__(self, fn):
        self.fn = fn
        self.site = None
        self.display_name = None

    def __call__(self, op, current):
        op._device = current
        return _as_device_string(self.fn(op))


def merge_device(spec):
    """A device function that merges `spec` into the device an inner scope already chose."""
    return MergeDevice(spec)


def device_function_for(device_name_or_function):
    """Turns the argument of `tf.device` into a stack entry (None stops the stack)."""
    if device_name_or_function is None:
        return None
    if isinstance(device_name_or_function, (str, DeviceSpec)):
        return MergeDevice(device_name_or_function)
    if isinstance(device_name_or_function, MergeDevice):  # `tf.device(merge_device(...))`
        return device_name_or_function
    if callable(device_name_or_function):
        return UserDeviceFunction(device_name_or_function)
    raise TypeError(f"tf.device expects a device name, DeviceSpec or function, not "
                    f"{device_name_or_function!r}")


def apply_device_stack(stack, op):
    """The device of `op` under a device stack (outermost first), as TF computes it: the
    innermost entry applies first, each outer one then merges or replaces; None stops."""
    device = ""
    for entry in reversed(stack):
        if entry is None:
            break
        if entry.is_null_merge:
            continue
        device = entry(op, device)
    return device
