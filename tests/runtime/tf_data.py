"""Loads what tests/data/record_devices.py recorded from TensorFlow."""

import json
import os

_PATH = os.path.join(os.path.dirname(__file__), "..", "data", "devices_tf.json")


def load():
    with open(_PATH) as f:
        return json.load(f)
