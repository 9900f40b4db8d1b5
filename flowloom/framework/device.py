"""Device names: `DeviceSpec`, merging of partial specs, and device functions."""

import re

_DEVICE_RE = re.compile(r"^(?:/job:([^/]+))?(?:/replica:(\d+))?(?:/task:(\d+))?"
                        r"(?:/(?:device:)?([A-Za-z_]+):(\d+|\*))?$")


class DeviceSpec:
    """A (possibly partial) device name: `/job:worker/replica:0/task:1/device:CPU:0`."""

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        if device_type is not None:
            device_type = device_type.upper() if device_type.lower() in ("cpu", "gpu") \
                else device_type
        self.device_type = device_type
        self.device_index = None if device_index in (None, "*") else int(device_index)

    @classmethod
    def from_string(cls, spec):
        if isinstance(spec, DeviceSpec):
            return spec
        spec = spec or ""
        parts = [p for p in spec.split("/") if p]
        job = replica = task = dtype = dindex = None
        i = 0
        while i < len(parts):
            p = parts[i]
            key, _, val = p.partition(":")
            lk = key.lower()
            if lk == "job":
                job = val
            elif lk == "replica":
                replica = val
            elif lk == "task":
                task = val
            elif lk == "device":
                dtype, _, dindex = val.partition(":")
                dindex = dindex or None
            elif lk in ("cpu", "gpu") or (val and (val.isdigit() or val == "*")):
                dtype, dindex = key, val
            elif p == "":
                pass
            else:
                raise ValueError(f"Unknown attribute: '{p}' in '{spec}'")
            i += 1
        if dindex == "*":
            dindex = None
        return cls(job, replica, task, dtype, dindex)

    def parse_from_string(self, spec):
        return DeviceSpec.from_string(spec)

    def make_merged_spec(self, dev):
        """Returns this spec with the fields that `dev` sets overriding its own."""
        dev = DeviceSpec.from_string(dev) if not isinstance(dev, DeviceSpec) else dev
        return DeviceSpec(
            dev.job if dev.job is not None else self.job,
            dev.replica if dev.replica is not None else self.replica,
            dev.task if dev.task is not None else self.task,
            dev.device_type if dev.device_type is not None else self.device_type,
            dev.device_index if dev.device_index is not None else (
                self.device_index if dev.device_type is None else None))

    def merge_from(self, dev):
        merged = self.make_merged_spec(dev)
        for f in self.__slots__:
            setattr(self, f, getattr(merged, f))

    def replace(self, **kwargs):
        fields = {f: getattr(self, f) for f in self.__slots__}
        fields.update(kwargs)
        return DeviceSpec(**fields)

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

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<DeviceSpec '{self.to_string()}'>"

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())


def canonical_name(device):
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def merge_device(spec):
    """A device function that merges `spec` into the device an inner scope already chose."""
    spec = DeviceSpec.from_string(spec) if not isinstance(spec, DeviceSpec) else spec

    def _merge(op, current):
        # Inner scopes (applied later) override the outer ones, so the outer spec is the base.
        if current:
            return spec.make_merged_spec(DeviceSpec.from_string(current)).to_string()
        return spec.to_string()

    return _merge


def device_function_for(device_name_or_function):
    """Turns the argument of `tf.device` into a function (op, inner_device) -> device."""
    if device_name_or_function is None:
        return None
    if callable(device_name_or_function) and not isinstance(device_name_or_function, DeviceSpec):
        user_fn = device_name_or_function

        def _call(op, current):
            if current:
                return current
            d = user_fn(op)
            return canonical_name(d)

        return _call
    return merge_device(device_name_or_function)
