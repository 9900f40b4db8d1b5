"""Winograd minimal-filtering convolution F(m x m, r x r) for stride-1 NHWC convolutions.

A convolution with an r x r kernel computes each m x m output tile from an alpha x alpha
input tile (alpha = m + r - 1) as  Y = A^T [(G g G^T) . (B^T d B)] A : after the input and
filter transforms, the channel contraction is alpha^2 independent matmuls of
[tiles, c] @ [c, co], which take r^2 m^2 / alpha^2 fewer multiplies than im2col's single
matmul (F(4x4, 5x5): 6.25x; F(2x2, 5x5): 2.8x). The filter gradient is the adjoint of the
same map: dU = V^T (A dY A^T) per tile position, then dg = G^T dU G.

Matrices come from Toom-Cook on small interpolation points (0, +-1, +-2, +-1/2), built in
float64 and rounded once. Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks"
(2015). Pure functions of arrays; nn_kernels decides when they are used.
"""

import functools

import numpy as np
from numpy.lib.stride_tricks import as_strided
from flowloom.ops.layout import c_order

# Interpolation points, best-conditioned first; alpha - 1 finite ones plus the point at infinity.
_POINTS = (0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0)


@functools.cache
def matrices(m, r, dtype=np.float32):
    """(A^T [m, alpha], G [alpha, r], B^T [alpha, alpha]) of F(m, r), rounded to `dtype`.

    Correlation y = A^T[(G g) . (B^T d)] comes from Toom-Cook linear convolution: with
    evaluation matrices E_k (row j = p_j^0..p_j^(k-1), infinity row = e_(k-1)) and V = E_alpha,
    conv(g, h) = V^-1 ((E_r g) . (E_m h)); correlation is its transpose in h, so
    A^T = E_m^T, G = E_r, B^T = V^-T. Each B^T row is scaled to integers where it can be, its
    inverse folded into G (the filter transform is computed once per step).
    """
    alpha = m + r - 1
    pts = _POINTS[:alpha - 1]

    def evaluation(k):
        e = np.zeros((alpha, k))
        for j, p in enumerate(pts):
            e[j] = [p ** i for i in range(k)]
        e[alpha - 1, k - 1] = 1.0
        return e

    at = evaluation(m).T
    g = evaluation(r)
    bt = np.linalg.inv(evaluation(alpha)).T
    scale = np.array([1.0 / np.abs(row[np.abs(row) > 1e-12]).min() for row in bt])
    bt *= scale[:, None]
    g /= scale[:, None]
    return at.astype(dtype), g.astype(dtype), bt.astype(dtype)


def _sandwich(t, d):
    """out[p, q, ...] = sum_ab t[p, a] t[q, b] d[a, b, ...]: two batches of small matmuls.

    Each matmul is [p, k] @ [k, rest]: on a cache-sized block, small enough that BLAS
    would not split it over threads anyway.
    """
    k, rest = d.shape[0], d.shape[2:]
    flat = d.reshape(k, k, -1)
    first = np.matmul(t, flat.transpose(1, 0, 2))  # [b, p, rest]
    return np.matmul(t, first.transpose(1, 0, 2)).reshape((t.shape[0],) * 2 + rest)


def _tile_count(oh, ow, m):
    return -(-oh // m), -(-ow // m)


# Images per block: a block's tiles, their transforms and products (a few x this many bytes)
# stay in L2 from the input transform to the output transform; this halves the conv's time
# against transforming the whole batch at once.
_BLOCK_BYTES = 512 << 10


def _image_blocks(n, per_image_bytes):
    step = max(1, _BLOCK_BYTES // max(per_image_bytes, 1))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


def _sequential(fn, blocks, nbytes):
    return [fn(blocks)]


def _padded(x, pads_h, pads_w, th, tw, m, alpha):
    """x zero-padded as the conv pads it, and out to whole tiles: [n, th*m+r-1, tw*m+r-1, c]."""
    n, h, wd, c = x.shape
    hp, wp = th * m + alpha - m, tw * m + alpha - m
    xpad = np.zeros((n, hp, wp, c), x.dtype)
    hh, ww = min(h, hp - pads_h[0]), min(wd, wp - pads_w[0])
    xpad[:, pads_h[0]:pads_h[0] + hh, pads_w[0]:pads_w[0] + ww] = x[:, :hh, :ww]
    return xpad


def _tiles(xpad, th, tw, m, alpha):
    """[alpha, alpha, n*th*tw, c]: the overlapping alpha x alpha tiles, m apart."""
    n, c = xpad.shape[0], xpad.shape[3]
    s0, s1, s2, s3 = xpad.strides
    view = as_strided(xpad, (alpha, alpha, n, th, tw, c), (s1, s2, s0, s1 * m, s2 * m, s3),
                      writeable=False)
    tiles = np.empty(view.shape, xpad.dtype)
    np.copyto(tiles, view)
    return tiles.reshape(alpha, alpha, n * th * tw, c)


def conv2d(x, w, pads_h, pads_w, oh, ow, m, in_groups=_sequential):
    """Stride-1, undilated NHWC conv2d [n,h,w,c] * [r,r,c,co] -> [n,oh,ow,co] by F(m, r).

    `in_groups(fn, blocks, nbytes)` returns [fn(group), ...] over groups of the image blocks
    (nn_kernels runs them on its worker threads).
    """
    n, c = x.shape[0], x.shape[3]
    r, co = w.shape[0], w.shape[3]
    alpha = m + r - 1
    at, g, bt = matrices(m, r, x.dtype.type)
    th, tw = _tile_count(oh, ow, m)
    u = _sandwich(g, w).reshape(alpha * alpha, c, co)
    full = np.empty((n, th, m, tw, m, co), x.dtype)

    def run(blocks):
        for part in blocks:
            b = part.stop - part.start
            # Padded per block: no padded copy of the whole batch alive at once.
            xpad = _padded(x[part], pads_h, pads_w, th, tw, m, alpha)
            v = _sandwich(bt, _tiles(xpad, th, tw, m, alpha))
            prod = np.matmul(v.reshape(alpha * alpha, -1, c), u)
            y = _sandwich(at, prod.reshape(alpha, alpha, -1, co))
            full[part] = y.reshape(m, m, b, th, tw, co).transpose(2, 3, 0, 4, 1, 5)
    per_image = alpha * alpha * th * tw * max(c, co) * x.itemsize
    in_groups(run, _image_blocks(n, per_image), n * per_image)
    full = full.reshape(n, th * m, tw * m, co)
    return full if (th * m, tw * m) == (oh, ow) else c_order(np, full[:, :oh, :ow])


def conv2d_backprop_filter(x, filter_shape, dy, pads_h, pads_w, m, in_groups=_sequential):
    """Filter gradient of `conv2d` by the adjoint of F(m, r): [r, r, c, co]."""
    n, c = x.shape[0], x.shape[3]
    r, co = filter_shape[0], filter_shape[3]
    oh, ow = dy.shape[1], dy.shape[2]
    alpha = m + r - 1
    at, g, bt = matrices(m, r, x.dtype.type)
    a_mat = c_order(np, at.T)
    th, tw = _tile_count(oh, ow, m)
    if (th * m, tw * m) != (oh, ow):
        grid = np.zeros((n, th * m, tw * m, co), dy.dtype)
        grid[:, :oh, :ow] = dy
        dy = grid
    dy6 = dy.reshape(n, th, m, tw, m, co)

    def run(blocks):
        du = np.zeros((alpha * alpha, c, co), np.result_type(x, dy))
        for part in blocks:
            b = part.stop - part.start
            xpad = _padded(x[part], pads_h, pads_w, th, tw, m, alpha)
            v = _sandwich(bt, _tiles(xpad, th, tw, m, alpha))
            dyt = np.empty((m, m, b, th, tw, co), dy.dtype)
            dyt.transpose(2, 3, 0, 4, 1, 5)[...] = dy6[part]
            dprod = _sandwich(a_mat, dyt.reshape(m, m, -1, co))
            du += np.matmul(v.reshape(alpha * alpha, -1, c).transpose(0, 2, 1),
                            dprod.reshape(alpha * alpha, -1, co))
        return du
    per_image = alpha * alpha * th * tw * max(c, co) * x.itemsize
    du = sum(in_groups(run, _image_blocks(n, per_image), n * per_image))
    return _sandwich(c_order(np, g.T), du.reshape(alpha, alpha, c, co))
