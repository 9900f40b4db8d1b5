"""`tf.test.Benchmark`: timing a graph's ops, reported as TF's benchmarks report them."""

import time

import numpy as np

from flowloom.platform import tf_logging


class Benchmark:
    """Base class for benchmarks: `report_benchmark` and `run_op_benchmark`."""

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        """Logs one benchmark's figures (TF writes them to its benchmark log)."""
        name = name or type(self).__name__
        tf_logging.info("Benchmark [%s] iters: %s, wall_time: %s, cpu_time: %s, throughput: %s, "
                        "extras: %s, metrics: %s", name, iters, wall_time, cpu_time, throughput,
                        extras, metrics)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10,
                         store_trace=False, store_memory_usage=True, name=None, extras=None,
                         mbs=0):
        """Runs `op_or_tensor` `burn_iters` times untimed, then `min_iters` times timed.

        Returns:
          A dict with `iters`, `wall_time` (the median seconds per run), `extras`, `name` and
          `throughput` (`mbs` / wall_time).
        """
        del store_trace, store_memory_usage
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.perf_counter()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.perf_counter() - start)
        median = float(np.median(deltas))
        values = {"iters": min_iters, "wall_time": median, "extras": extras or {}, "name": name,
                  "throughput": mbs / median if median else 0.0}
        self.report_benchmark(iters=min_iters, wall_time=median, extras=extras, name=name,
                              throughput=values["throughput"])
        return values
