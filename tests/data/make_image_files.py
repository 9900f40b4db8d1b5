"""Writes the small image files of tests/data/images/ (inputs of the codec cases in
tests/ops/image_cases.py) with Pillow, from fixed NumPy patterns:

    .venv/bin/python tests/data/make_image_files.py
"""

import os

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")


def _pattern(h, w, c, seed):
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)),
                     ((x + y) * 7) % 256, (x * y) % 256], axis=-1)[:, :, :c]
    return np.clip(base + rng.randint(-20, 21, base.shape), 0, 255).astype(np.uint8)


def main():
    os.makedirs(OUT, exist_ok=True)
    rgb = _pattern(21, 34, 3, 0)
    Image.fromarray(rgb).save(os.path.join(OUT, "rgb.jpg"), quality=90)
    Image.fromarray(rgb).save(os.path.join(OUT, "rgb444.jpg"), quality=75, subsampling=0)
    Image.fromarray(_pattern(17, 15, 1, 1)[:, :, 0]).save(os.path.join(OUT, "gray.jpg"))
    Image.fromarray(rgb).save(os.path.join(OUT, "rgb.png"))
    Image.fromarray(_pattern(9, 11, 4, 2), "RGBA").save(os.path.join(OUT, "rgba.png"))
    Image.fromarray(_pattern(9, 11, 1, 3)[:, :, 0]).save(os.path.join(OUT, "gray.png"))
    Image.fromarray(_pattern(9, 11, 3, 4)).convert("P", palette=Image.ADAPTIVE,
                                                   colors=16).save(os.path.join(OUT, "pal.png"))
    g16 = (_pattern(6, 7, 1, 5)[:, :, 0].astype(np.uint16) * 257 + 3).astype(np.uint16)
    Image.fromarray(g16).save(os.path.join(OUT, "gray16.png"))
    frames = [Image.fromarray(_pattern(8, 10, 3, s)).convert("P", palette=Image.ADAPTIVE,
                                                             colors=8) for s in (6, 7, 8)]
    frames[0].save(os.path.join(OUT, "anim.gif"), save_all=True, append_images=frames[1:],
                   duration=50, loop=0)
    Image.fromarray(_pattern(7, 9, 3, 9)).save(os.path.join(OUT, "rgb.bmp"))
    Image.fromarray(_pattern(12, 10, 4, 10), "CMYK").save(os.path.join(OUT, "cmyk.jpg"),
                                                          quality=90)


if __name__ == "__main__":
    main()
