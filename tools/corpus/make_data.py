"""Writes the corpus's local stand-in data into $FLOWLOOM_CORPUS_DIR/data.

The corpus programs download MNIST, CIFAR-10 and text corpora; the machines that judge them have
no network. These stand-ins have the same file formats (so the programs' own readers run
unchanged) and are made from data bundled with scikit-learn or generated here, deterministically:

  mnist/            train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-*.gz
                    (idx format; scikit-learn's 8x8 digits upscaled to 20x20 in a 28x28 frame,
                    shifted and jittered: 6000 training and 1000 test images)
  mnist-raw/        the same four files unzipped (programs with their own idx reader)
  cifar-10-batches-bin/  data_batch_1..5.bin, test_batch.bin, batches.meta.txt (CIFAR-10 binary
                    records: 1 label byte + 3072 bytes R,G,B planes; 200 images a batch)
  cifar-10-binary.tar.gz  the same folder as the archive CIFAR-10's site serves
  text8.zip         one member "text8": 120,000 space-separated lower-case words
  shakespeare.txt   ~190 KB of line-broken English-like prose (char-RNN programs);
  shakespeare_small.txt  its first ~20 KB
  iris_training.csv, iris_test.csv  scikit-learn's iris table in TF's CSV layout (header
                    "120,4,setosa,versicolor,virginica", rows of 4 floats and a class id):
                    120 training and 30 test rows, shuffled with a fixed seed
  adult.data, adult.test  a census-income-like table in the UCI "adult" layout as TF's
                    wide & deep tutorial cleans it (15 comma-separated fields, no spaces, label
                    ">50K"/"<=50K" drawn from a fixed rule of education, hours, marriage and
                    capital gain plus noise): 2000 training and 500 test rows
  imports-85.data   an automobile table in the UCI "imports-85" layout (26 comma-separated
                    fields, "?" for a missing value, no header; price drawn from a fixed rule of
                    curb weight, horsepower and make plus noise): 205 rows

Usage: python tools/corpus/make_data.py [--out DIR]
"""

import argparse
import gzip
import io
import os
import struct
import sys
import tarfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import cache_dir  # noqa: E402


def _digits():
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("make_data: scikit-learn is needed for the MNIST stand-in (pip install "
                 "scikit-learn; it is flowloom's `demo` extra)")
    d = load_digits()
    return d.images.astype(np.float64) / 16.0, d.target.astype(np.uint8)


def _upscale(img8, size=20):
    """Bilinear resize of one 8x8 image to size x size."""
    src = np.linspace(0, 7, size)
    i0 = np.floor(src).astype(int)
    i1 = np.minimum(i0 + 1, 7)
    f = src - i0
    rows = img8[i0] * (1 - f)[:, None] + img8[i1] * f[:, None]
    return rows[:, i0] * (1 - f)[None, :] + rows[:, i1] * f[None, :]


def mnist_arrays(n_train=6000, n_test=1000, seed=0):
    images, labels = _digits()
    big = np.stack([_upscale(im) for im in images])
    rng = np.random.RandomState(seed)

    def make(n):
        idx = rng.randint(0, len(big), size=n)
        out = np.zeros((n, 28, 28), np.float64)
        for k, i in enumerate(idx):
            dy, dx = rng.randint(1, 8, size=2)
            out[k, dy:dy + 20, dx:dx + 20] = big[i] * rng.uniform(0.8, 1.0)
        out += rng.uniform(0, 0.05, size=out.shape)
        return (np.clip(out, 0, 1) * 255).astype(np.uint8), labels[idx]

    return make(n_train), make(n_test)


def _idx_images(arr):
    return struct.pack(">iiii", 2051, arr.shape[0], 28, 28) + arr.tobytes()


def _idx_labels(arr):
    return struct.pack(">ii", 2049, arr.shape[0]) + arr.astype(np.uint8).tobytes()


def _gz(path, payload):
    # mtime=0: the same bytes every time.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(payload)


def write_mnist(out):
    d = os.path.join(out, "mnist")
    os.makedirs(d, exist_ok=True)
    (tx, ty), (vx, vy) = mnist_arrays()
    _gz(os.path.join(d, "train-images-idx3-ubyte.gz"), _idx_images(tx))
    _gz(os.path.join(d, "train-labels-idx1-ubyte.gz"), _idx_labels(ty))
    _gz(os.path.join(d, "t10k-images-idx3-ubyte.gz"), _idx_images(vx))
    _gz(os.path.join(d, "t10k-labels-idx1-ubyte.gz"), _idx_labels(vy))
    raw = os.path.join(out, "mnist-raw")
    os.makedirs(raw, exist_ok=True)
    for name, payload in (("train-images-idx3-ubyte", _idx_images(tx)),
                          ("train-labels-idx1-ubyte", _idx_labels(ty)),
                          ("t10k-images-idx3-ubyte", _idx_images(vx)),
                          ("t10k-labels-idx1-ubyte", _idx_labels(vy))):
        with open(os.path.join(raw, name), "wb") as f:
            f.write(payload)


CIFAR_CLASSES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                 "truck"]


def cifar_batch(n, rng):
    """n CIFAR-10 binary records: each class a colour and a stripe orientation, plus noise."""
    labels = rng.randint(0, 10, size=n).astype(np.uint8)
    yy, xx = np.mgrid[0:32, 0:32]
    recs = []
    for lab in labels.tolist():
        base = np.array([(lab * 37) % 256, (lab * 91) % 256, (lab * 53) % 256], np.float64)
        stripe = np.sin((xx * np.cos(lab) + yy * np.sin(lab)) / 3.0) * 40
        img = base[:, None, None] + stripe[None] + rng.normal(0, 25, size=(3, 32, 32))
        recs.append(bytes([lab]) + np.clip(img, 0, 255).astype(np.uint8).tobytes())
    return b"".join(recs)


def write_cifar(out):
    rng = np.random.RandomState(1)
    d = os.path.join(out, "cifar-10-batches-bin")
    os.makedirs(d, exist_ok=True)
    names = ["data_batch_%d.bin" % i for i in range(1, 6)] + ["test_batch.bin"]
    for name in names:
        with open(os.path.join(d, name), "wb") as f:
            f.write(cifar_batch(200, rng))
    with open(os.path.join(d, "batches.meta.txt"), "w") as f:
        f.write("\n".join(CIFAR_CLASSES) + "\n")
    with tarfile.open(os.path.join(out, "cifar-10-binary.tar.gz"), "w:gz") as tar:
        for name in names + ["batches.meta.txt"]:
            tar.add(os.path.join(d, name), arcname="cifar-10-batches-bin/" + name)


_WORDS = ("the of and to in a is that for it as was with be by on not he i this are or his from "
          "at which but have an they you were her she there one all we their can has been if "
          "more when will would who so no time people year new first world city state king "
          "queen man woman child water fire earth light dark house river ship war peace art "
          "music science history language number system life death love night day sun moon "
          "star gold silver iron stone tree forest mountain sea island road school church "
          "army law power money work game film book song word name family friend father mother "
          "son daughter brother sister good great small large old young long short high low "
          "red blue green black white north south east west run walk speak write read play "
          "make take give find think know see come go eat drink sleep live die build").split()


def english_like(n_words, seed):
    """Words with a Zipf-like frequency and some order (a fixed successor table)."""
    rng = np.random.RandomState(seed)
    v = len(_WORDS)
    p = 1.0 / np.arange(1, v + 1)
    p /= p.sum()
    succ = rng.randint(0, v, size=(v, 3))
    out = [int(rng.choice(v, p=p))]
    for _ in range(n_words - 1):
        if rng.rand() < 0.6:
            out.append(int(succ[out[-1], rng.randint(3)]))
        else:
            out.append(int(rng.choice(v, p=p)))
    return [_WORDS[i] for i in out]


def write_text(out):
    words = english_like(120000, seed=2)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("text8", date_time=(1980, 1, 1, 0, 0, 0))
        z.writestr(info, " " + " ".join(words))
    with open(os.path.join(out, "text8.zip"), "wb") as f:
        f.write(buf.getvalue())
    prose = english_like(40000, seed=3)
    lines, line = [], []
    for i, w in enumerate(prose):
        line.append(w)
        if len(line) >= 8 or i == len(prose) - 1:
            s = " ".join(line)
            lines.append(s[0].upper() + s[1:] + ("." if i % 3 else ","))
            line = []
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "shakespeare.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "shakespeare_small.txt"), "w") as f:
        f.write(text[:text.index("\n", 20000) + 1])


def write_iris(out):
    from sklearn.datasets import load_iris

    iris = load_iris()
    order = np.random.RandomState(0).permutation(len(iris.target))
    for name, rows in (("iris_training.csv", order[:120]), ("iris_test.csv", order[120:])):
        lines = ["%d,4,setosa,versicolor,virginica" % len(rows)]
        lines += [",".join("%.1f" % v for v in iris.data[i]) + ",%d" % iris.target[i]
                  for i in rows]
        with open(os.path.join(out, name), "w") as f:
            f.write("\n".join(lines) + "\n")


_CENSUS_VOCAB = {
    "workclass": ["Self-emp-not-inc", "Private", "State-gov", "Federal-gov", "Local-gov", "?",
                  "Self-emp-inc", "Without-pay"],
    "education": ["Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college",
                  "Assoc-acdm", "Assoc-voc", "7th-8th", "Doctorate", "Prof-school", "5th-6th",
                  "10th", "1st-4th", "Preschool", "12th"],
    "marital_status": ["Married-civ-spouse", "Divorced", "Married-spouse-absent",
                       "Never-married", "Separated", "Married-AF-spouse", "Widowed"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical"],
    "relationship": ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried",
                     "Other-relative"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "gender": ["Female", "Male"],
    "native_country": ["United-States", "Cambodia", "England", "Canada", "Germany", "India"],
}


def _census_rows(rng, n):
    v = _CENSUS_VOCAB
    rows = []
    for _ in range(n):
        edu = int(rng.randint(len(v["education"])))
        education_num = 16 - edu if edu < 16 else 9
        married = int(rng.randint(len(v["marital_status"])))
        hours = int(rng.randint(10, 80))
        gain = int(rng.choice([0, 0, 0, 0, 2174, 5178, 15024]))
        age = int(rng.randint(17, 80))
        score = (education_num / 4.0 + hours / 25.0 + (married == 0) * 1.5 +
                 (gain > 5000) * 2 + (age > 35) * 0.8 + rng.normal(0, 0.8))
        rows.append(",".join(str(x) for x in (
            age, v["workclass"][rng.randint(len(v["workclass"]))], int(rng.randint(20000, 400000)),
            v["education"][edu], education_num, v["marital_status"][married],
            v["occupation"][rng.randint(len(v["occupation"]))],
            v["relationship"][rng.randint(len(v["relationship"]))],
            v["race"][rng.randint(len(v["race"]))], v["gender"][rng.randint(2)], gain,
            int(rng.choice([0, 0, 0, 1902])), hours,
            v["native_country"][rng.randint(len(v["native_country"]))],
            ">50K" if score > 6.2 else "<=50K")))
    return rows


def write_census(out):
    rng = np.random.RandomState(1994)
    for name, n in (("adult.data", 2000), ("adult.test", 500)):
        with open(os.path.join(out, name), "w") as f:
            f.write("\n".join(_census_rows(rng, n)) + "\n")


_MAKES = ["alfa-romero", "audi", "bmw", "chevrolet", "dodge", "honda", "isuzu", "jaguar",
          "mazda", "mercedes-benz", "mitsubishi", "nissan", "peugot", "plymouth", "porsche",
          "saab", "subaru", "toyota", "volkswagen", "volvo"]


def _imports85_rows(rng, n):
    rows = []
    for _ in range(n):
        make = int(rng.randint(len(_MAKES)))
        weight = int(rng.randint(1500, 4000))
        hp = int(40 + (weight - 1500) / 25 + rng.randint(0, 60))
        length = 140 + (weight - 1500) / 40.0 + rng.uniform(-5, 5)
        price = int(weight * 4 + hp * 60 + (make % 5) * 1500 + rng.normal(0, 1500))
        city = int(50 - weight / 120 + rng.randint(0, 6))

        def missing(value, p=0.03):
            return "?" if rng.rand() < p else value
        rows.append(",".join(str(x) for x in (
            int(rng.randint(-2, 4)), missing(int(rng.randint(65, 256)), 0.18), _MAKES[make],
            ["gas", "diesel"][int(rng.rand() < 0.1)], ["std", "turbo"][int(rng.rand() < 0.2)],
            missing(["two", "four"][int(rng.randint(2))], 0.01),
            ["hardtop", "wagon", "sedan", "hatchback", "convertible"][rng.randint(5)],
            ["rwd", "fwd", "4wd"][rng.randint(3)], ["front", "rear"][int(rng.rand() < 0.02)],
            "%.1f" % (86 + (length - 140) / 3.0), "%.1f" % length,
            "%.1f" % rng.uniform(60, 72), "%.1f" % rng.uniform(47, 60), weight,
            ["dohc", "ohcv", "ohc", "l", "rotor", "ohcf"][rng.randint(6)],
            ["four", "six", "five", "eight", "two", "three"][rng.randint(6)],
            int(60 + hp * 0.8), ["mpfi", "2bbl", "mfi", "1bbl", "spfi", "4bbl", "idi"][
                rng.randint(7)], missing("%.2f" % rng.uniform(2.5, 4.0)),
            missing("%.2f" % rng.uniform(2.0, 4.2)), "%.1f" % rng.uniform(7, 23),
            missing(hp, 0.01), missing(int(rng.randint(42, 66)) * 100, 0.01), city,
            city + int(rng.randint(3, 9)), missing(price, 0.02))))
    return rows


def write_imports85(out):
    rng = np.random.RandomState(85)
    with open(os.path.join(out, "imports-85.data"), "w") as f:
        f.write("\n".join(_imports85_rows(rng, 205)) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="folder (default: $FLOWLOOM_CORPUS_DIR/data)")
    args = ap.parse_args(argv)
    out = args.out or os.path.join(cache_dir(required=True), "data")
    os.makedirs(out, exist_ok=True)
    write_mnist(out)
    write_cifar(out)
    write_text(out)
    write_iris(out)
    write_census(out)
    write_imports85(out)
    with open(os.path.join(out, "READY"), "w") as f:
        f.write("stand-in data v1\n")
    print("make_data: wrote %s" % out)


if __name__ == "__main__":
    main()
