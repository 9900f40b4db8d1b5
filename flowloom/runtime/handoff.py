"""The interpreter's thread switch interval while flowloom runs compute on threads of its own.

Queue runners and tf.data's background threads are Python threads: while one of them runs
Python code (a reader, a preprocessing subgraph), a thread that wants the GIL back — the
training step's thread, after a NumPy kernel released it — waits until the running thread
is asked to drop it, which CPython does only after its switch interval (5 ms by default).
A step that reacquires the GIL hundreds of times then pays milliseconds each time the
pipeline is busy, where TF's C++ threads cost it nothing. So when flowloom starts such
threads it lowers the interval to `FLOWLOOM_SWITCH_INTERVAL` seconds (default 0.001; the
CIFAR-10 step fed by its queue went from 0.74x to 0.89x of the fed step, bench/
queue_fed_step.py). It only ever lowers it, once per process; `FLOWLOOM_SWITCH_INTERVAL=0`
leaves the interpreter's setting alone.
"""

import os
import sys

_done = []


def quick_handoff():
    """Lowers the switch interval (see above); called where flowloom starts its threads."""
    if _done:
        return
    _done.append(True)
    try:
        interval = float(os.environ.get("FLOWLOOM_SWITCH_INTERVAL") or "0.001")
    except ValueError:
        return
    if 0 < interval < sys.getswitchinterval():
        sys.setswitchinterval(interval)
