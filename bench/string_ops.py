"""Benchmark: tf.strings kernels on 10,000 strings, flowloom against TensorFlow.

Each row runs one op on a fed batch of 10,000 short strings (a [1000, 10] matrix for the
joins and n-grams) and reports the CPU time of one `sess.run` (time.process_time, best of 5
after 2 warm-up runs), on flowloom and, in a subprocess, on the TensorFlow named by
`--tf-python` (else $FLOWLOOM_TF1_PYTHON, else $FLOWLOOM_TF_PYTHON), in alternating processes,
`--rounds` times; each figure is the median over rounds. The floor is the same work in plain
Python on bytes (a list comprehension), measured in the flowloom process: flowloom's string
kernels are Python loops, so the floor shows how much is the loop and how much the op.

Usage: python3 bench/string_ops.py [--rounds 3] [--tf-python PATH]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# Runs on TF 1.15's Python 3.7 too: keep the syntax plain.
PROGRAM = r'''
import base64, json, re, sys, time
import numpy as np
if sys.argv[1] == "tf":
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import flowloom as tf
N = 10000
words = [("Word%d %d.5" % (i % 97, i)).encode() for i in range(N)]
numbers = [("%d.25" % i).encode() for i in range(N)]
b64 = [base64.urlsafe_b64encode(w) for w in words]
x = tf.placeholder(tf.string, [None])
m = tf.placeholder(tf.string, [None, 10])
s = tf.strings
ops = {
    "length": (s.length(x), words), "lower": (s.lower(x), words),
    "regex_replace": (s.regex_replace(x, "[0-9]+", "#"), words),
    "to_number": (s.to_number(x), numbers),
    "to_hash_bucket": (s.to_hash_bucket(x, 1000), words),
    "to_hash_bucket_fast": (s.to_hash_bucket_fast(x, 1000), words),
    "to_hash_bucket_strong": (s.to_hash_bucket_strong(x, 1000, [1, 2]), words),
    "decode_base64": (tf.decode_base64(x), b64),
    "unicode_transcode": (s.unicode_transcode(x, "UTF-8", "UTF-16-BE"), words),
    "reduce_join": (s.reduce_join(m, axis=1, separator=" "), words),
    "ngrams": (s.ngrams(m, 2), words),
}
rx = re.compile(b"[0-9]+")
floors = {
    "length": lambda: [len(w) for w in words], "lower": lambda: [w.lower() for w in words],
    "regex_replace": lambda: [rx.sub(b"#", w) for w in words],
    "to_number": lambda: [float(w) for w in numbers],
    "decode_base64": lambda: [base64.urlsafe_b64decode(w) for w in b64],
}


def best_of(fn):
    for _ in range(2):
        fn()
    best = 1e9
    for _ in range(5):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best * 1e3


out = {}
with tf.Session() as sess:
    for name, (t, data) in ops.items():
        feed = {m: np.array(data, dtype=object).reshape(-1, 10)} if name in (
            "reduce_join", "ngrams") else {x: np.array(data, dtype=object)}
        out[name] = best_of(lambda: sess.run(t, feed))
if sys.argv[1] != "tf":
    for name, fn in floors.items():
        out["floor_" + name] = best_of(fn)
print(json.dumps(out))
'''


def _run(python, which):
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([python, "-c", PROGRAM, which], capture_output=True, text=True,
                       env=env, timeout=900)
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tf-python", default=os.environ.get(
        "FLOWLOOM_TF1_PYTHON") or os.environ.get("FLOWLOOM_TF_PYTHON"))
    args = ap.parse_args()
    runs = {"flowloom": [], "tf": []}
    for _ in range(args.rounds):
        runs["flowloom"].append(_run(sys.executable, "flowloom"))
        if args.tf_python:
            runs["tf"].append(_run(args.tf_python, "tf"))
    med = {k: {n: statistics.median(r[n] for r in v) for n in v[0]} for k, v in runs.items()
           if v}
    print(f"load average {os.getloadavg()[0]:.2f}; CPU ms per run of 10,000 strings "
          f"(median of {args.rounds} rounds)")
    print(f"{'op':24}{'flowloom':>10}{'TF':>10}{'ratio':>9}{'floor':>9}")
    for name, ms in med["flowloom"].items():
        if name.startswith("floor_"):
            continue
        tf_ms = med.get("tf", {}).get(name)
        floor = med["flowloom"].get("floor_" + name)
        print(f"{name:24}{ms:10.2f}" + (f"{tf_ms:10.2f}{ms / tf_ms:8.1f}x" if tf_ms else
                                         " " * 19)
              + (f"{floor:9.2f}" if floor is not None else ""))


if __name__ == "__main__":
    main()
