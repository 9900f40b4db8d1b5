"""The devices a session can place ops on: CPUs (NumPy) and, where CuPy finds CUDA, GPUs.

`ConfigProto(device_count={'CPU': n})` gives n CPU devices, as in TensorFlow, so cross-device
behaviour can be exercised on any machine. GPUs need the optional extra `flowloom[gpu]`
(CuPy); it is imported only when a session looks for GPUs.
"""

import os

import numpy as np

LOCAL_PREFIX = "/job:localhost/replica:0/task:0"


class DeviceAttributes:
    """What `Session.list_devices()` returns for each device."""

    def __init__(self, name, device_type, memory_limit_bytes=268435456, incarnation=0):
        from flowloom.framework.device import canonical_name

        self.name = canonical_name(name)
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self):
        return (f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, "
                f"{self.incarnation})")


class Device:
    """One local device: its full name, its array module `xp`, and host transfers."""

    __slots__ = ("name", "device_type", "index", "xp", "attributes", "cuda_id")

    def __init__(self, device_type, index, xp, memory_limit_bytes=268435456, cuda_id=None):
        self.device_type = device_type
        self.index = index
        self.cuda_id = cuda_id
        self.name = f"{LOCAL_PREFIX}/device:{device_type}:{index}"
        self.xp = xp
        self.attributes = DeviceAttributes(self.name, device_type, memory_limit_bytes,
                                           incarnation=_incarnation(self.name))

    @property
    def is_host(self):
        return self.xp is np

    def put(self, array):
        """`array` (a host array) as an array of this device."""
        if self.xp is np:
            return array
        if array.dtype == object:  # strings stay on the host, as TF keeps them in host memory
            return array
        with self.xp.cuda.Device(self.cuda_id):
            return self.xp.asarray(array)

    def __repr__(self):
        return f"<Device {self.name}>"


def _incarnation(name):
    # TF draws a random 64-bit incarnation per device and process; a stable hash of the name
    # and the process id serves the same purpose (distinguishing restarts).
    return (hash((name, os.getpid())) & 0x7FFFFFFFFFFFFFFF) or 1


def to_host(value):
    """A device array as a NumPy array (NumPy arrays and Python values pass through)."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__cuda_array_interface__"):
        return value
    return value.get()


def transfer(value, src, dst):
    """The copy a _Send/_Recv pair makes from device `src` to device `dst`.

    Between host (CPU) devices of one process the buffer is shared, as in TensorFlow: kernels
    never write their inputs, so no copy is needed. Host<->GPU and GPU<->GPU copy.
    """
    if src.xp is dst.xp and (src.xp is np or src.cuda_id == dst.cuda_id):
        return value
    if value is None or not hasattr(value, "dtype"):
        return value
    if dst.xp is np:
        return to_host(value)
    return dst.put(to_host(value) if src.xp is np else value)


def _count(config, kind):
    counts = getattr(config, "device_count", None) if config is not None else None
    if not counts or kind not in counts:
        return None
    return int(counts[kind])


def _cupy_gpu_count():
    try:
        import cupy  # noqa: PLC0415 - optional extra, imported only when GPUs are looked for
    except ImportError:
        return 0, None
    try:
        return cupy.cuda.runtime.getDeviceCount(), cupy
    except Exception:  # noqa: BLE001 - no driver or no device: no GPUs
        return 0, None


def local_devices(config=None):
    """The local devices `config` asks for: n CPUs for `device_count={'CPU': n}` (at least
    one), then the GPUs CuPy finds (at most `device_count['GPU']`, `visible_device_list`)."""
    n_cpu = max(1, _count(config, "CPU") or 1)
    devices = [Device("CPU", i, np) for i in range(n_cpu)]
    n_gpu_wanted = _count(config, "GPU")
    if n_gpu_wanted == 0 or os.environ.get("FLOWLOOM_NO_GPU"):
        return devices
    n_gpu, cupy = _cupy_gpu_count()
    if not n_gpu:
        return devices
    visible = getattr(getattr(config, "gpu_options", None), "visible_device_list", "") or ""
    ids = [int(s) for s in visible.split(",") if s.strip()] if visible else list(range(n_gpu))
    ids = [i for i in ids if i < n_gpu]
    if n_gpu_wanted is not None:
        ids = ids[:n_gpu_wanted]
    for index, cuda_id in enumerate(ids):
        with cupy.cuda.Device(cuda_id):
            _, total = cupy.cuda.runtime.memGetInfo()
        devices.append(Device("GPU", index, cupy, memory_limit_bytes=int(total), cuda_id=cuda_id))
    return devices
