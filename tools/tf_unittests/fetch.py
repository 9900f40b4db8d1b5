"""Fetches TensorFlow's own Python unit tests (the files in manifest.json) into a cache.

The manifest lists the test files (`files`) and TF's test-support modules that they import
(`support`: helpers such as tensorflow/python/training/saver_test_utils.py, which the shim
loads from the cache as TF's code instead of mapping them onto flowloom; they are never run
as tests), and the data files that tests read (`data`: TF's test images such as
tensorflow/core/lib/png/testdata/lena_gray.png, read by their path relative to the source
tree; run.py lays them out as Bazel's runfiles would, see `runfiles`). The files are
TensorFlow's: they are never committed to flowloom. This step puts them
in `$FLOWLOOM_TF_TESTS_DIR` (default `~/.cache/flowloom/tf_unittests/v1.15.0`), each checked
against the git blob id recorded in the manifest, so every session tests the same text.

`edits` (manifest, {path: [{"old", "new", "count", "why"}]}) are mechanical changes that let
TF 1.15's test code run under the NumPy flowloom runs on, where NumPy 2 changed a semantics
that no alias can restore (a list of slices as an index, out-of-range values in
np.array(..., dtype), the result type of scalar division): each replaces `old` by `new`,
which must occur exactly `count` times in TF's text (default 1), and names why. They touch
only the test's own NumPy code, never what it checks of TensorFlow. The cache keeps TF's
text unchanged (checked against the blob ids); run.py runs an edited copy of such a file,
written into that file's temporary work directory.

Sources, in order:
  --git-dir DIR (or $FLOWLOOM_TF_GIT): a clone of tensorflow/tensorflow holding the
      manifest's commit (`git show COMMIT:PATH`);
  otherwise raw.githubusercontent.com at the manifest's commit (needs network).

    python3 tools/tf_unittests/fetch.py [--git-dir DIR] [--dest DIR]
    python3 tools/tf_unittests/fetch.py --git-dir DIR --write-manifest   # re-records blob ids
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")
MAX_FILE_BYTES = 4 << 20


def default_cache_dir(manifest=None):
    """The cache directory: $FLOWLOOM_TF_TESTS_DIR or ~/.cache/flowloom/tf_unittests/<tag>."""
    env = os.environ.get("FLOWLOOM_TF_TESTS_DIR")
    if env:
        return env
    tag = (manifest or load_manifest())["tag"]
    return os.path.join(os.path.expanduser("~"), ".cache", "flowloom", "tf_unittests", tag)


def load_manifest(path=MANIFEST):
    with open(path) as f:
        return json.load(f)


def blob_id(data):
    """Git's blob id of `data` (sha1 of 'blob <len>\\0' + data)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _from_git(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                          check=True, capture_output=True).stdout


def _from_github(repo, commit, path):
    url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
    with urllib.request.urlopen(url, timeout=60) as response:
        data = response.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    return data


def all_entries(manifest):
    """The test files, the support files and the data files of the manifest."""
    return manifest["files"] + manifest.get("support", []) + manifest.get("data", [])


def runfiles(cache_dir, work):
    """Lays out `work` as Bazel runs a TF test: `work/runfiles` is $TEST_SRCDIR and
    `work/runfiles/org_tensorflow` the working directory, whose `tensorflow` links to the
    cache's tree (so "tensorflow/core/lib/..." and test.test_src_dir_path find the data
    files). Returns (test_srcdir, cwd)."""
    srcdir = os.path.join(work, "runfiles")
    cwd = os.path.join(srcdir, "org_tensorflow")
    os.makedirs(cwd, exist_ok=True)
    link = os.path.join(cwd, "tensorflow")
    if not os.path.lexists(link):
        os.symlink(os.path.join(os.path.abspath(cache_dir), "tensorflow"), link)
    return srcdir, cwd


def support_modules(manifest, cache_dir):
    """{TF module path: file in the cache} of the support files that are present."""
    out = {}
    for entry in manifest.get("support", []):
        path = os.path.join(cache_dir, entry["path"])
        if os.path.exists(path):
            out[entry["path"][:-len(".py")].replace("/", ".")] = path
    return out


def apply_edits(data, edits, path="file"):
    """TF's text `data` (bytes) with the manifest's edits for it applied."""
    text = data.decode("utf-8")
    for edit in edits:
        count = edit.get("count", 1)
        found = text.count(edit["old"])
        if found != count:
            raise ValueError(f"{path}: edit {edit['old']!r} occurs {found} times, the "
                             f"manifest expects {count}")
        text = text.replace(edit["old"], edit["new"])
    return text.encode("utf-8")


def edited_text(entry, cache_dir, edits):
    """TF's cached text of `entry` with `edits` applied (bytes); ValueError when the cached
    file is not the manifest's blob (the cache itself is never edited: several checkouts
    share it, and fetch.py checks it against the blob ids)."""
    with open(os.path.join(cache_dir, entry["path"]), "rb") as f:
        data = f.read()
    if blob_id(data) != entry["blob"]:
        raise ValueError(f"{entry['path']}: the cached file is not the manifest's blob "
                         f"{entry['blob']}; fetch it again (tools/tf_unittests/fetch.py)")
    return apply_edits(data, edits, entry["path"])


def fetch(manifest, dest, git_dir=None, log=print):
    """Writes every manifest file under `dest`; returns the number of files fetched."""
    fetched = 0
    edits = manifest.get("edits", {})
    for entry in all_entries(manifest):
        path = entry["path"]
        target = os.path.join(dest, path)
        if os.path.exists(target):
            with open(target, "rb") as f:
                if blob_id(f.read()) == entry["blob"]:
                    continue
        if git_dir:
            data = _from_git(git_dir, manifest["commit"], path)
        else:
            data = _from_github(manifest["repo"], manifest["commit"], path)
        if blob_id(data) != entry["blob"]:
            raise ValueError(f"{path}: content differs from the manifest's blob {entry['blob']}")
        if path in edits:
            apply_edits(data, edits[path], path)  # the edits must still apply
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        fetched += 1
    log(f"[tf-tests] {len(all_entries(manifest))} files in {dest} ({fetched} fetched now)")
    return fetched


def write_manifest(manifest, git_dir, path=MANIFEST):
    """Re-records the blob id of every listed file from a local clone."""
    for entry in all_entries(manifest):
        entry["blob"] = blob_id(_from_git(git_dir, manifest["commit"], entry["path"]))
    save_manifest(manifest, path)


def save_manifest(manifest, path=MANIFEST):
    """Writes the manifest with one line per file and per exclusion (small diffs)."""
    lines = ["{"]
    for key in ("repo", "tag", "commit", "note"):
        lines.append(f" {json.dumps(key)}: {json.dumps(manifest[key])},")
    lines.append(' "files": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in manifest["files"]))
    lines.append(" ],")
    lines.append(' "support": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in manifest.get("support", [])))
    lines.append(" ],")
    lines.append(' "data": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in manifest.get("data", [])))
    lines.append(" ],")
    lines.append(' "edits": {')
    lines.append(",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}"
                            for k, v in sorted(manifest.get("edits", {}).items())))
    lines.append(" },")
    lines.append(' "exclusions": {')
    lines.append(",\n".join(
        f"  {json.dumps(k)}: {{\n" + ",\n".join(f"   {json.dumps(t)}: {json.dumps(r)}"
                                                for t, r in v.items()) + "\n  }"
        for k, v in manifest["exclusions"].items()))
    lines.append(" }," if manifest.get("slow") else " }")
    if manifest.get("slow"):
        # Tests whose own code waits past the default per-test limit: their own limit.
        lines.append(' "slow": {')
        lines.append(",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}"
                                for k, v in sorted(manifest["slow"].items())))
        lines.append(" }")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(line for line in lines if line) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", default=os.environ.get("FLOWLOOM_TF_GIT"))
    parser.add_argument("--dest", default=None)
    parser.add_argument("--write-manifest", action="store_true")
    args = parser.parse_args(argv)
    manifest = load_manifest()
    if args.write_manifest:
        if not args.git_dir:
            parser.error("--write-manifest needs --git-dir")
        write_manifest(manifest, args.git_dir)
        return 0
    fetch(manifest, args.dest or default_cache_dir(manifest), args.git_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
