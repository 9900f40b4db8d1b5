"""GPU check: the CNN training step with its tower on /gpu:0 (CuPy) against the same step
on the CPU. Not run by CI; run it on a machine with a CUDA GPU and `pip install
flowloom[gpu]` (CuPy):

    python3 bench/gpu_check.py [--steps 3] [--batch 32]

It builds the multi-tower graph of bench/devices.py with one tower on /gpu:0 (variables and
updates stay on /cpu:0, as in the CIFAR-10 multi-GPU model, so every step copies the
weights host->GPU and the gradients GPU->host through Send/Recv pairs), runs a few steps,
and compares the losses and the trained variables with a CPU-only run of the same graph.
Exits 1 with a clear message when CuPy or a GPU is missing, 2 when the results differ.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def fail(message, code=1):
    print(f"gpu_check: {message}", file=sys.stderr)
    sys.exit(code)


def run(tf, tower_device, batch, steps):
    from bench.devices import build

    graph = tf.Graph()
    with graph.as_default():
        feeds, loss, step, trains = build(tf, batch, num_towers=1, tower_device=tower_device)
        init = tf.global_variables_initializer()
        variables = tf.global_variables()
    with tf.Session(graph=graph, config=tf.ConfigProto(log_device_placement=False)) as sess:
        devices = [d.name for d in sess.list_devices()]
        sess.run(init)
        losses, times = [], []
        for _ in range(steps):
            t0 = time.perf_counter()
            sess.run(step, feeds)
            times.append(time.perf_counter() - t0)
            losses.append(float(sess.run(loss, feeds)))
        md = tf.RunMetadata()
        sess.run(step, feeds, options=tf.RunOptions(output_partition_graphs=True),
                 run_metadata=md)
        values = sess.run(variables)
    placed = sorted({n.device for g in md.partition_graphs for n in g.node})
    return losses, values, times, trains, devices, placed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    try:
        import cupy
    except ImportError:
        fail("CuPy is not installed (pip install 'flowloom[gpu]'); this check needs a GPU.")
    try:
        n_gpu = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - no driver, no device
        fail(f"CuPy finds no CUDA device ({e}).")
    if n_gpu == 0:
        fail("CuPy finds no CUDA device.")
    import flowloom as tf

    gpu = run(tf, "/gpu:%d", args.batch, args.steps)
    cpu = run(tf, "/cpu:%d", args.batch, args.steps)
    losses_g, values_g, times_g, trains, devices, placed = gpu
    losses_c, values_c, times_c = cpu[0], cpu[1], cpu[2]
    print("devices:", ", ".join(devices))
    print("partitions on:", ", ".join(placed))
    if not any("GPU" in d for d in placed):
        fail("nothing was placed on the GPU.", 2)
    what = "training step" if trains else "forward pass (no tf.gradients in this build)"
    print(f"{what}: GPU losses {losses_g}")
    print(f"{what}: CPU losses {losses_c}")
    print(f"median step: GPU {sorted(times_g)[len(times_g) // 2] * 1e3:.1f} ms, "
          f"CPU {sorted(times_c)[len(times_c) // 2] * 1e3:.1f} ms")
    bad = not np.allclose(losses_g, losses_c, rtol=1e-3, atol=1e-5)
    for a, b in zip(values_g, values_c):
        if not np.allclose(a, b, rtol=1e-3, atol=1e-5):
            bad = True
    if bad:
        fail("GPU and CPU results differ.", 2)
    print("gpu_check: OK (GPU results match the CPU run)")


if __name__ == "__main__":
    main()
