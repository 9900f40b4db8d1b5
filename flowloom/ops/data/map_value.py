"""tf.data's `map` at run time: the function per element, or on chunks of elements where it
is batch-safe (flowloom/data/vectorize.py)."""

import collections
import concurrent.futures
import os

from flowloom.ops.data.dataset_values import DatasetValue


class MapValue(DatasetValue):
    """`map`: the function per element, or, where it is batch-safe (`BoundFunction.batched`),
    on chunks of elements at once (1, 2, 4, ... up to `MAP_CHUNK` elements pulled from the
    input: a short iteration pulls little ahead). A chunk whose batched run fails runs
    element by element, so errors come as and where the per-element run raises them."""

    MAP_CHUNK = 128

    def __init__(self, input_value, fn, num_parallel_calls=1, deterministic=True):
        self.input = input_value
        self.fn = fn
        self.parallel = max(1, int(num_parallel_calls)) if num_parallel_calls != -1 else \
            max(2, os.cpu_count() or 2)

    def iterate(self):
        fn = self.fn
        batched = fn.batched() if hasattr(fn, "batched") else None
        if batched is not None:
            yield from self._iterate_chunks(fn, batched)
            return
        if self.parallel == 1:
            for elem in self.input.iterate():
                yield fn(elem)
            return
        # Results in input order; at most `parallel` calls in flight.
        from flowloom.runtime.handoff import quick_handoff

        quick_handoff()
        with concurrent.futures.ThreadPoolExecutor(self.parallel) as pool:
            pending = collections.deque()
            source = self.input.iterate()
            for elem in source:
                pending.append(pool.submit(fn, elem))
                if len(pending) >= self.parallel:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

    def _iterate_chunks(self, fn, batched):
        state = {"batched": batched}

        def run(chunk):
            if state["batched"] is not None and len(chunk) > 1:
                try:
                    return state["batched"](chunk)
                except Exception:  # noqa: BLE001 - the per-element run says what is wrong
                    state["batched"] = None  # this input does not batch: stop trying
            return None

        chunks = _chunks(self.input.iterate(), self.MAP_CHUNK)
        if self.parallel == 1:
            for chunk, error in chunks:
                out = run(chunk)
                yield from (out if out is not None else (fn(e) for e in chunk))
                if error is not None:
                    raise error
            return
        # One chunk computed on a worker while the previous one is consumed.
        from flowloom.runtime.handoff import quick_handoff

        quick_handoff()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pending = collections.deque()
            for item in chunks:
                pending.append((item, pool.submit(run, item[0])))
                if len(pending) >= 2:
                    yield from self._finish(fn, *pending.popleft())
            while pending:
                yield from self._finish(fn, *pending.popleft())

    @staticmethod
    def _finish(fn, item, future):
        chunk, error = item
        out = future.result()
        yield from (out if out is not None else (fn(e) for e in chunk))
        if error is not None:
            raise error


def _chunks(source, limit):
    """(chunk, error) pairs: lists of 1, 2, 4, ... `limit` elements of `source`; the last
    chunk carries the error the input raised after it, if any."""
    size = 1
    while True:
        chunk = []
        try:
            for _ in range(size):
                chunk.append(next(source))
        except StopIteration:
            if chunk:
                yield chunk, None
            return
        except Exception as e:  # noqa: BLE001 - re-raised after the elements before it
            yield chunk, e
            return
        yield chunk, None
        size = min(2 * size, limit)
