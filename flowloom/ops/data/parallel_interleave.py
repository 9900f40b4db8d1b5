"""The element order of tf.data.experimental.parallel_interleave (ParallelInterleaveDataset),
read one element at a time.

TF's op keeps `cycle_length + prefetch_input_elements` workers, each reading the dataset
made from one input element: the first `cycle_length` in the cycle's slots, the others
staged in order. Without `sloppy` the order it yields is fixed: from slot `next` on, the
first slot with an element gives it (`block_length` in a row from one slot, counted across
skipped slots as TF counts them); a slot whose dataset ended takes the next input element
into its worker, which joins the back of the stage, and the slot takes the stage's front
worker, and reading resumes at the slot after it. Here each worker's dataset is read when
its turn comes, so the order is TF's (`sloppy` allows any order; this one is among them).
"""

from flowloom.ops.data.dataset_values import DatasetValue, _as_dataset


class ParallelInterleaveValue(DatasetValue):
    def __init__(self, input_value, fn, cycle_length, block_length, prefetch_input, op):
        self.input, self.fn, self.op = input_value, fn, op
        self.cycle, self.block, self.prefetch = cycle_length, block_length, prefetch_input

    def iterate(self):
        source = self.input.iterate()
        workers = []  # per worker: the iterator of its element's dataset, or None (ended)
        slots, stage = [], []

        def take_input(worker):
            """Gives `worker` the next input element; False when the input has ended."""
            try:
                elem = next(source)
            except StopIteration:
                return False
            fn, op = self.fn, self.op
            workers[worker] = (lambda: _as_dataset(fn(elem)[0], op).iterate())
            return True

        for i in range(self.cycle + self.prefetch):
            workers.append(None)
            if not take_input(i):
                workers.pop()
                break
            (slots if i < self.cycle else stage).append(i)
        source_open = len(workers) == self.cycle + self.prefetch
        next_index = block_count = 0
        while True:
            restart = produced = False
            for i in range(len(slots)):
                index = (next_index + i) % len(slots)
                w = slots[index]
                if w < 0:
                    continue
                it = workers[w]
                if callable(it):
                    it = workers[w] = it()
                try:
                    elem = next(it)
                except StopIteration:
                    pass
                else:
                    next_index = index
                    block_count += 1
                    if block_count == self.block:
                        next_index, block_count = (index + 1) % len(slots), 0
                    produced = True
                    yield elem
                    break
                slots[index] = -1  # this worker's dataset ended
                if source_open:
                    if take_input(w):
                        stage.append(w)
                    else:
                        source_open = False
                if stage:
                    slots[index] = stage.pop(0)
                    next_index, block_count = (index + 1) % len(slots), 0
                    restart = True
                    break
            if not produced and not restart:
                return
