"""Image kernels rewritten for speed against their plain formulations: the same bits."""

import numpy as np

from flowloom.ops.image import color_ops


def _contrast_reference(images, factor):
    """AdjustContrastv2 as TF's CPU kernel computes it, on [batch, pixels, channels]: the
    channel sums by repeated halving over pixels, then mean + factor * (x - mean)."""
    f32 = np.float32
    h, w, c = images.shape[-3:]
    planes = images.astype(f32).reshape(-1, h * w, c)
    rest, acc = h * w, None
    while True:
        right = rest // 2
        left = rest - right
        if acc is None:
            acc = planes[:, :left].copy()
            acc[:, :right] = planes[:, left:left + right] + planes[:, :right]
        else:
            acc[:, :right] += acc[:, left:left + right]
        rest = left
        if rest <= 1:
            break
    mean = acc[:, 0] * (f32(1.0) / f32(h * w))
    out = mean[:, None, :] + f32(factor) * (planes - mean[:, None, :])
    return out.reshape(images.shape).astype(images.dtype, copy=False)


def test_adjust_contrast_equals_the_halving_reference():
    kernel = color_ops.AdjustContrastv2.kernel_fn
    rng = np.random.RandomState(0)
    for t in range(300):
        shape = tuple(int(d) for d in rng.randint(1, 30, size=rng.randint(3, 5)))
        shape = shape[:-1] + (int(rng.choice([1, 3, 4])),)
        dtype = (np.float32, np.float16)[t % 2]
        x = (rng.randn(*shape) * rng.choice([1.0, 100.0, 1e3])).astype(dtype)
        factor = np.float32(rng.randn() * 2)
        with np.errstate(over="ignore"):
            got, want = kernel(np, x, factor), _contrast_reference(x, factor)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert (got.view(np.uint8) == want.view(np.uint8)).all(), (t, shape)


def test_adjust_contrast_of_one_image_shape_in_two_threads():
    # One image's sums run in a buffer per thread (made for the first image of a shape): two
    # threads at once, and images of other shapes in between, keep each result its own.
    import threading

    kernel = color_ops.AdjustContrastv2.kernel_fn
    failures = []

    def work(seed):
        rng = np.random.RandomState(seed)
        for t in range(150):
            shape = (24, 24, 3) if t % 3 else (int(rng.randint(1, 9)), 7, 3)
            x = (rng.rand(*shape) * 255).astype(np.float32)
            factor = np.float32(rng.uniform(0.2, 1.8))
            got = kernel(np, x, factor)
            if got.tobytes() != _contrast_reference(x, factor).tobytes():
                failures.append((seed, t))
    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures
