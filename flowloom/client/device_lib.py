"""`tensorflow.python.client.device_lib`: the devices a session would get."""

from flowloom.runtime import devices as _devices


class DeviceAttributes:
    """One local device, with the fields of TF's DeviceAttributes proto programs read."""

    def __init__(self, name, device_type, memory_limit, incarnation=0, physical_device_desc=""):
        self.name = name
        self.device_type = device_type
        self.memory_limit = memory_limit
        self.incarnation = incarnation
        self.physical_device_desc = physical_device_desc

    def __repr__(self):
        return (f'name: "{self.name}"\ndevice_type: "{self.device_type}"\n'
                f"memory_limit: {self.memory_limit}\nincarnation: {self.incarnation}\n")


def list_local_devices(session_config=None):
    """The local devices (`/device:CPU:0`, `/device:GPU:0`, ...) for `session_config`."""
    out = []
    for d in _devices.local_devices(session_config):
        out.append(DeviceAttributes(f"/device:{d.device_type}:{d.index}", d.device_type,
                                    d.attributes.memory_limit_bytes,
                                    d.attributes.incarnation))
    return out
