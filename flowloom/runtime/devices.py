"""The devices a session can place ops on."""

_LOCAL_PREFIX = "/job:localhost/replica:0/task:0"


class DeviceAttributes:
    """What `Session.list_devices()` returns for each device."""

    def __init__(self, name, device_type, memory_limit_bytes=268435456, incarnation=0):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self):
        return (f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, "
                f"{self.incarnation})")


def _device_count(config, kind):
    if config is None:
        return None
    counts = getattr(config, "device_count", None)
    if not counts:
        return None
    return counts.get(kind)


def local_devices(config=None):
    """The local devices that `config` asks for (`device_count={'CPU': n}` gives n CPUs)."""
    n_cpu = _device_count(config, "CPU") or 1
    return [DeviceAttributes(f"{_LOCAL_PREFIX}/device:CPU:{i}", "CPU", incarnation=i + 1)
            for i in range(n_cpu)]
