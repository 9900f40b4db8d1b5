#!/usr/bin/env python3
"""flowloom's developer entry point: `python3 dev.py demo`, `test`, `bench`, `corpus`, `tf-tests`.

`python3 dev.py corpus fetch` fetches the public TF1 programs of tools/corpus/manifest.json and
writes their stand-in data into $FLOWLOOM_CORPUS_DIR; `python3 dev.py corpus [--only ID]` runs
them under TF and flowloom (tools/corpus/run.py).

`python3 dev.py test --rewrites off` runs the tests with every graph rewrite off
(FLOWLOOM_REWRITES=0); `--rewrites on` runs them with every rewrite on and its size thresholds
lowered so the rewrites act on the tests' small graphs too (FLOWLOOM_REWRITES=all). Both runs
must pass: a rewrite never changes a result.

`python3 dev.py tf-tests [--only SUBSTRING ...]` runs TensorFlow 1.15's own unit tests against
flowloom (tools/tf_unittests: fetch them first with tools/tf_unittests/fetch.py) and writes
docs/tf_unittests.md.

Each command first makes sure `.venv` exists with flowloom and what the command needs
installed (it reinstalls when pyproject.toml changes), then runs inside it.
"""

import hashlib
import os
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
PY = os.path.join(VENV, "bin", "python")
STAMP = os.path.join(VENV, ".flowloom-installed")
# `dev.py test --rewrites MODE`: the FLOWLOOM_REWRITES value the tests run under.
REWRITE_MODES = {"off": "0", "on": "all"}


def _want(extras):
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return f"{digest} {','.join(sorted(extras))}"


def ensure_venv(extras):
    if not os.path.exists(PY):
        print("[dev] creating .venv", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    want = _want(extras)
    have = open(STAMP).read() if os.path.exists(STAMP) else ""
    if have != want:
        spec = ".[%s]" % ",".join(extras) if extras else "."
        print(f"[dev] installing flowloom{spec[1:]} into .venv", flush=True)
        subprocess.check_call([PY, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "-e", spec], cwd=ROOT)
        with open(STAMP, "w") as f:
            f.write(want)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else "help"
    rest = argv[2:]
    if cmd == "test":
        # `distributed` (Ray) lets tests/distributed start real multi-process clusters.
        ensure_venv(["test", "demo", "distributed"])
        env = dict(os.environ)
        # Programs the tests start in subprocesses import this checkout's flowloom.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
        if "--rewrites" in rest:
            k = rest.index("--rewrites")
            mode = rest[k + 1] if k + 1 < len(rest) else ""
            if mode not in REWRITE_MODES:
                print("[dev] --rewrites takes 'off' or 'on'", flush=True)
                return 2
            env["FLOWLOOM_REWRITES"] = REWRITE_MODES[mode]
            rest = rest[:k] + rest[k + 2:]
        lint = subprocess.call([PY, "-m", "ruff", "check", "flowloom", "tests", "bench"],
                               cwd=ROOT)
        if lint:
            print("[dev] ruff found problems (see above)", flush=True)
            return lint
        return subprocess.call([PY, "-m", "pytest"] + rest, cwd=ROOT, env=env)
    if cmd == "demo":
        ensure_venv(["demo"])
        return subprocess.call([PY, "-m", "flowloom.cli.main", "demo"] + rest, cwd=ROOT)
    if cmd == "bench":
        ensure_venv(["test", "demo"])
        return subprocess.call([PY, os.path.join(ROOT, "bench", "run.py")] + rest, cwd=ROOT)
    if cmd == "tf-tests":
        ensure_venv(["test", "demo", "tftests", "distributed"])  # the distributed group runs on Ray
        return subprocess.call([PY, os.path.join(ROOT, "tools", "tf_unittests", "run.py")]
                               + rest, cwd=ROOT)
    if cmd == "corpus":
        ensure_venv(["test", "demo", "corpus"])
        tools = os.path.join(ROOT, "tools", "corpus")
        if rest[:1] == ["fetch"]:
            rc = subprocess.call([PY, os.path.join(tools, "fetch.py")] + rest[1:], cwd=ROOT)
            return rc or subprocess.call([PY, os.path.join(tools, "make_data.py")], cwd=ROOT)
        return subprocess.call([PY, os.path.join(tools, "run.py")] + rest, cwd=ROOT)
    print(__doc__)
    return 0 if cmd == "help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
