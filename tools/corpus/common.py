"""Where the corpus lives: the manifest (in the repo) and the cache (outside it).

The cache folder is $FLOWLOOM_CORPUS_DIR (default ~/.cache/flowloom-corpus):
  src/<owner>+<name>/<commit>/<path>   the programs and the files they need, fetched by fetch.py
  data/                                the stand-in data written by make_data.py
  tf_results/                          TF runs kept between harness runs (keyed by the program's
                                       text and the TF interpreter)
"""

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")
ROOT = os.path.dirname(os.path.dirname(HERE))


def cache_dir(required=False):
    d = os.environ.get("FLOWLOOM_CORPUS_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "flowloom-corpus")
    if required:
        os.makedirs(d, exist_ok=True)
    return d


def load_manifest(path=MANIFEST):
    with open(path) as f:
        doc = json.load(f)
    programs = doc["programs"]
    ids = [p["id"] for p in programs]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit("manifest: duplicate ids %s" % sorted(dup))
    return doc


def src_path(entry, path=None):
    """The cached copy of one file of an entry's repository at the entry's commit."""
    return os.path.join(cache_dir(), "src", entry["repo"].replace("/", "+"), entry["commit"],
                        path or entry["path"])


def entry_files(entry):
    """Every repository file an entry needs: the program, then the files listed with it."""
    return [entry["path"]] + list(entry.get("files", []))


def apply_edits(text, edits, where):
    """Applies a manifest entry's exact text substitutions; each must match at least once.

    Args:
      text: the program's source.
      edits: list of [old, new] or [old, new, count] (count: how many occurrences to replace;
        default all).
      where: a name for error messages.

    Raises:
      ValueError: an `old` text that the program does not contain (the manifest is stale).
    """
    for edit in edits:
        old, new = edit[0], edit[1]
        if old not in text:
            raise ValueError("%s: edit target not found: %r" % (where, old))
        text = text.replace(old, new, edit[2]) if len(edit) > 2 else text.replace(old, new)
    return text


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:16]
