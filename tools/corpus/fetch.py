"""Fetches the corpus programs into the cache ($FLOWLOOM_CORPUS_DIR/src); never into the repo.

For each manifest entry, the program and the files it needs are read at the pinned commit from,
in this order:
  1. a local git mirror: $FLOWLOOM_CORPUS_MIRROR/<owner>+<name>/repo (a bare git directory or a
     clone; `git show <commit>:<path>`), e.g. the snapshots the session's `fetch` tool makes;
  2. a local clone: $FLOWLOOM_CORPUS_MIRROR/<owner>/<name> (same);
  3. https://raw.githubusercontent.com/<owner>/<name>/<commit>/<path> (needs the network).

Usage: python tools/corpus/fetch.py [--only SUBSTRING]
"""

import argparse
import os
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import entry_files, load_manifest, src_path  # noqa: E402


def _git_dirs(repo):
    base = os.environ.get("FLOWLOOM_CORPUS_MIRROR")
    if not base:
        return []
    owner, name = repo.split("/")
    out = []
    for cand in (os.path.join(base, owner + "+" + name, "repo"), os.path.join(base, owner, name)):
        for g in (os.path.join(cand, ".git"), cand):
            if os.path.isdir(os.path.join(g, "objects")):
                out.append(g)
                break
    return out


def read_at(repo, commit, path):
    """The bytes of `path` at `commit`, or None when no source has them."""
    for g in _git_dirs(repo):
        r = subprocess.run(["git", "--git-dir", g, "show", "%s:%s" % (commit, path)],
                           capture_output=True)
        if r.returncode == 0:
            return r.stdout
    url = "https://raw.githubusercontent.com/%s/%s/%s" % (repo, commit,
                                                          urllib.request.quote(path))
    try:
        with urllib.request.urlopen(url, timeout=20) as resp:
            return resp.read()
    except OSError:
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="entries whose id contains this")
    args = ap.parse_args(argv)
    doc = load_manifest()
    missing = 0
    for entry in doc["programs"]:
        if args.only and args.only not in entry["id"]:
            continue
        for path in entry_files(entry):
            dest = src_path(entry, path)
            if os.path.exists(dest):
                continue
            data = read_at(entry["repo"], entry["commit"], path)
            if data is None:
                print("fetch: MISSING %s %s:%s" % (entry["repo"], entry["commit"][:10], path))
                missing += 1
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(data)
    print("fetch: done, %d file(s) missing" % missing)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
