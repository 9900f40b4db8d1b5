"""The corpus harness: runs each public TF1 program under TensorFlow and under flowloom.

Each program of tools/corpus/manifest.json is copied from the cache ($FLOWLOOM_CORPUS_DIR, see
fetch.py), edited as the manifest says (step counts, Python 2 syntax, local data paths), given
its stand-in data (make_data.py) in a fresh temporary folder, and run, one at a time with a
timeout:
  (a) under TensorFlow: TF 1.15 ($FLOWLOOM_TF1_PYTHON, has tf.contrib), or TF 2.x compat.v1
      ($FLOWLOOM_TF_PYTHON, through runners/tf2_run.py);
  (b) under `flowloom run script.py` (or, where this flowloom has no `run` command yet, through
      runners/fl_shim_run.py, which maps `tensorflow` onto flowloom; the table says which).
It writes docs/real_programs.md (the table and headline), docs/real_programs.json, and the
ranked list of what stops programs on flowloom (--blockers).

Usage:
  python tools/corpus/run.py [--only SUBSTR] [--timeout S] [--rerun-tf] [--blockers FILE]
(`python3 dev.py corpus` runs it in the project's .venv.) It skips, saying why, when no TF or
no fetched corpus is found. TF results are cached in the cache folder between runs.
"""

import argparse
import json
import resource
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import (ROOT, apply_edits, cache_dir, digest, entry_files,  # noqa: E402
                    load_manifest, src_path)
from compare import blocker_key, compare_numbers, final_numbers, first_error  # noqa: E402
import report  # noqa: E402

SHIMS = os.path.join(HERE, "shims")
RUNNERS = os.path.join(HERE, "runners")
# Part of the key of cached TF results: change it when a change to the shims or to how a run is
# set up could change what TF prints (or rerun the programs concerned with --rerun-tf).
HARNESS_VERSION = "1"
# Stand-in data kinds (make_data.py) -> what is placed at the manifest's destination.
DATA_KINDS = {"mnist": "mnist", "mnist_raw": "mnist-raw", "cifar10_bin": "cifar-10-batches-bin",
              "cifar10_tgz": "cifar-10-binary.tar.gz", "text8_zip": "text8.zip",
              "text": "shakespeare.txt", "text_small": "shakespeare_small.txt",
              "iris_train": "iris_training.csv", "iris_test": "iris_test.csv",
              "census_train": "adult.data", "census_test": "adult.test",
              "imports85": "imports-85.data"}


def reference_tf():
    """(kind, command prefix) for the reference TF, or (None, reason)."""
    tf1 = os.environ.get("FLOWLOOM_TF1_PYTHON")
    if tf1 and os.path.exists(tf1):
        return "tf1", [tf1]
    tf2 = os.environ.get("FLOWLOOM_TF_PYTHON")
    if tf2 and os.path.exists(tf2):
        return "tf2", [tf2, os.path.join(RUNNERS, "tf2_run.py")]
    return None, "neither FLOWLOOM_TF1_PYTHON nor FLOWLOOM_TF_PYTHON names a Python"


def flowloom_command(python):
    """(runner name, command prefix): `flowloom run` when this flowloom has it, else the shim.

    The probe runs a two-line TF1 script through `python -m flowloom.cli.main run`.
    """
    with tempfile.TemporaryDirectory(prefix="corpus-probe-") as tmp:
        probe = os.path.join(tmp, "probe.py")
        with open(probe, "w") as f:
            f.write("import tensorflow as tf\nprint('probe', tf.constant(1).dtype)\n")
        try:
            r = subprocess.run([python, "-m", "flowloom.cli.main", "run", probe],
                               capture_output=True, text=True, timeout=180, cwd=tmp)
            if r.returncode == 0 and "probe" in r.stdout:
                return "flowloom run", [python, "-m", "flowloom.cli.main", "run"]
        except subprocess.TimeoutExpired:
            pass
    return "shim", [python, os.path.join(RUNNERS, "fl_shim_run.py")]


def prepare(entry, base, data_dir):
    """Lays out one program and its files and data under `base`; returns (cwd, script, text)."""
    texts = []
    for path in entry_files(entry):
        with open(src_path(entry, path), "rb") as f:
            raw = f.read()
        edits = entry.get("edits", []) if path == entry["path"] else \
            entry.get("file_edits", {}).get(path, [])
        if edits or path.endswith(".py"):
            text = raw.decode("utf-8", errors="replace")
            text = apply_edits(text, edits, "%s:%s" % (entry["id"], path))
            if path == entry["path"] and entry.get("append"):
                # a silent program prints what it computed, so its numbers can be judged
                text = text.rstrip("\n") + "\n" + entry["append"].rstrip("\n") + "\n"
            raw = text.encode("utf-8")
        texts.append(raw)
        dest = os.path.join(base, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(raw)
    cwd = os.path.join(base, os.path.dirname(entry["path"]))
    for kind, dest in entry.get("data", {}).items():
        src = os.path.join(data_dir, DATA_KINDS[kind])
        target = os.path.normpath(os.path.join(cwd, dest))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(src, target)
    return cwd, os.path.join(base, entry["path"]), texts


def run_program(cmd, cwd, timeout):
    env = dict(os.environ)
    env["PYTHONPATH"] = SHIMS + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update({"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "", "PYTHONHASHSEED": "0",
                "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
    t0 = time.time()
    # CPU seconds (user + system) of the finished child: on a loaded machine wall time
    # measures the load as much as the program, CPU time only the program's work.
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        rc, out, err, timed_out = p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as e:
        rc, out, err, timed_out = None, e.stdout or b"", e.stderr or b"", True
    secs = time.time() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    out = out.decode("utf-8", errors="replace")
    err = err.decode("utf-8", errors="replace")
    return {"rc": rc, "stdout": out, "stderr": err, "secs": round(secs, 2),
            "cpu": round(cpu, 2), "timed_out": timed_out}


def run_steps(prefix, entry, base, script, cwd, timeout):
    """Runs the entry's `before` programs, then the program itself, all with `prefix` (the same
    TF or flowloom), each before-program in its own folder under `base`, as a user runs a
    tutorial's converter before its reader. The first failing step is the result (its stderr
    headed by its path); otherwise the program's result, with every step's seconds added."""
    secs = cpu = 0.0
    for step in entry.get("before", []):
        path = os.path.join(base, step["path"])
        res = run_program(prefix + [path] + step.get("args", []), os.path.dirname(path), timeout)
        if res["timed_out"] or res["rc"] != 0:
            res["stderr"] = "[before: %s]\n%s" % (step["path"], res["stderr"])
            return res
        secs, cpu = secs + res["secs"], cpu + res["cpu"]
    res = run_program(prefix + [script] + entry.get("args", []), cwd, timeout)
    res["secs"], res["cpu"] = round(res["secs"] + secs, 2), round(res["cpu"] + cpu, 2)
    return res


def judge(entry, res):
    """Adds status, first error and final numbers to one run's raw result."""
    if res["timed_out"]:
        res["status"], res["error"] = "timeout", ["Timeout", "over %ss" % res.get("limit")]
    elif res["rc"] == 0:
        res["status"], res["error"] = "ok", None
    else:
        res["status"] = "error"
        err = first_error(res["stderr"])
        if err is None:
            tail = [ln for ln in res["stderr"].splitlines() if ln.strip()][-1:] or [""]
            err = ("ExitCode%s" % res["rc"], tail[0][:200])
        res["error"] = list(err)
    nums, text = final_numbers(res["stdout"], lines=entry.get("final_lines", 3),
                               ignore=entry.get("ignore_lines", []),
                               mask=entry.get("mask", []))
    res["numbers"], res["numbers_text"] = nums, text
    return trim(res)


def trim(res):
    """Keeps the end of a run's output only (the error's traceback when it failed), so the JSON
    committed with the table stays small."""
    res["stdout"] = res["stdout"][-400:]
    res["stderr"] = res["stderr"][-1500:] if res.get("status") != "ok" else ""
    return res


def run_entry(entry, tf_cmd, tf_kind, fl_cmd, fl_runner, data_dir, args, tf_cache):
    out = {"id": entry["id"], "repo": entry["repo"], "commit": entry["commit"], "path": entry["path"],
           "category": entry.get("category", ""), "seeded": bool(entry.get("seeded")),
           "flowloom_runner": fl_runner, "tf_kind": tf_kind}
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        try:
            cwd_tf, script_tf, texts = prepare(entry, os.path.join(tmp, "tf"), data_dir)
            cwd_fl, script_fl, _ = prepare(entry, os.path.join(tmp, "fl"), data_dir)
        except (OSError, ValueError) as e:
            out["setup_error"] = str(e)
            return out
        key = digest(HARNESS_VERSION, tf_kind, " ".join(tf_cmd), json.dumps(entry, sort_keys=True),
                     *texts)
        cached = os.path.join(tf_cache, "%s-%s.json" % (entry["id"].replace("/", "+"), key))
        if os.path.exists(cached) and not args.rerun_tf:
            with open(cached) as f:
                tf_res = json.load(f)
        else:
            tf_res = run_steps(tf_cmd, entry, os.path.join(tmp, "tf"), script_tf, cwd_tf,
                               args.timeout)
            tf_res["limit"] = args.timeout
            tf_res = judge(entry, tf_res)
            os.makedirs(tf_cache, exist_ok=True)
            with open(cached, "w") as f:
                json.dump(tf_res, f)
        if args.tf_only:
            print("  %s tf: %s %.1fs %s | %s" % (entry["id"], tf_res["status"], tf_res["secs"],
                                              tf_res.get("error"), tf_res["numbers_text"][:150]))
            return None
        fl_limit = max(args.timeout, int(10 * tf_res["secs"])) if tf_res["status"] == "ok" \
            else args.timeout
        fl_res = run_steps(fl_cmd, entry, os.path.join(tmp, "fl"), script_fl, cwd_fl, fl_limit)
        fl_res["limit"] = fl_limit
        fl_res = judge(entry, fl_res)
    out["tf"], out["flowloom"] = tf_res, fl_res
    tol = entry.get("tolerance", {})
    out["numbers"] = "-"
    if tf_res["status"] == "ok" and fl_res["status"] == "ok":
        out["numbers"] = compare_numbers(fl_res["numbers"], tf_res["numbers"],
                                         rtol=tol.get("rtol", 1e-3), atol=tol.get("atol", 1e-5))
    if tf_res["status"] == "ok" and fl_res["status"] == "ok" and tf_res["secs"] > 0:
        out["wall_ratio"] = round(fl_res["secs"] / tf_res["secs"], 2)
        # the time ratio is of CPU seconds where both runs have them, else of wall time
        if tf_res.get("cpu") and fl_res.get("cpu"):
            out["time_ratio"] = round(fl_res["cpu"] / tf_res["cpu"], 2)
        else:
            out["time_ratio"] = out["wall_ratio"]
    out["blocker"] = blocker_of(out)
    return out


def blocker_of(r):
    """What stopped a program on flowloom (None when nothing did), from its stored results."""
    if "tf" not in r:
        return None
    if r["flowloom"]["status"] != "ok":
        return blocker_key(*r["flowloom"]["error"])
    if r["tf"]["status"] == "ok" and r["seeded"] and r["numbers"] == "differ":
        return "wrong value (seeded numbers differ from TF)"
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[],
                    help="run entries whose id contains this (repeatable); the others keep "
                         "their last results in the JSON")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per TF run (default 120)")
    ap.add_argument("--tf-only", action="store_true",
                    help="run (and cache) the TF side only; writes nothing (manifest work)")
    ap.add_argument("--rerun-tf", action="store_true", help="ignore the cached TF results")
    ap.add_argument("--md", default=os.path.join(ROOT, "docs", "real_programs.md"))
    ap.add_argument("--json", default=os.path.join(ROOT, "docs", "real_programs.json"))
    ap.add_argument("--blockers", default=None, help="also write the ranked blockers here")
    ap.add_argument("--python", default=sys.executable,
                    help="the Python that has flowloom (default: this one)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: rewrite the table and blockers from the JSON")
    ap.add_argument("--flowloom-src", default=None,
                    help="run the flowloom of this checkout (put first on PYTHONPATH), e.g. "
                         "another branch's worktree, instead of the installed one")
    args = ap.parse_args(argv)
    flowloom_root = ROOT
    if args.flowloom_src:
        flowloom_root = os.path.abspath(args.flowloom_src)
        os.environ["PYTHONPATH"] = flowloom_root + (
            os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"

    if args.report_only:
        with open(args.json) as f:
            doc = json.load(f)
        write_outputs(args, doc["meta"], doc["results"])
        return 0
    tf_kind, tf_cmd = reference_tf()
    if tf_kind is None:
        print("corpus: SKIPPED: no reference TensorFlow (%s)" % tf_cmd)
        return 0
    if tf_kind == "tf1":
        # TF 1.15 derives default op seeds from the op count, TF 2.x from a per-graph counter;
        # flowloom follows TF 2.x unless told otherwise. Judge against 1.15 with its rule.
        os.environ.setdefault("FLOWLOOM_SEED_RULES", "1")
    cache = cache_dir()
    data_dir = os.path.join(cache, "data")
    doc = load_manifest()
    entries = [e for e in doc["programs"]
               if not args.only or any(s in e["id"] for s in args.only)]
    absent = [e["id"] for e in entries
              if not all(os.path.exists(src_path(e, p)) for p in entry_files(e))]
    if len(absent) == len(entries):
        print("corpus: SKIPPED: the corpus is not fetched into %s (run tools/corpus/fetch.py)"
              % os.path.join(cache, "src"))
        return 0
    if not os.path.exists(os.path.join(data_dir, "READY")):
        print("corpus: SKIPPED: no stand-in data in %s (run tools/corpus/make_data.py)" % data_dir)
        return 0
    fl_runner, fl_cmd = flowloom_command(args.python)
    print("corpus: %d program(s); reference %s; flowloom via %s" % (len(entries), tf_kind,
                                                                   fl_runner), flush=True)
    previous = {}
    if os.path.exists(args.json):
        with open(args.json) as f:
            previous = {r["id"]: r for r in json.load(f).get("results", [])}
    meta = {"flowloom_commit": report.git_head(flowloom_root) + (
                " (%s)" % flowloom_root if args.flowloom_src else ""), "reference": tf_kind,
            "flowloom_runner": fl_runner, "manifest_programs": len(doc["programs"]),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    results = {}
    for i, entry in enumerate(entries, 1):
        if entry["id"] in absent:
            print("[%d/%d] %s: not fetched, skipped" % (i, len(entries), entry["id"]))
            continue
        r = run_entry(entry, tf_cmd, tf_kind, fl_cmd, fl_runner, data_dir, args,
                      os.path.join(cache, "tf_results"))
        if r is None:
            continue
        results[entry["id"]] = r
        print("[%d/%d] %s" % (i, len(entries), report.one_line(r)), flush=True)
        # The outputs are rewritten after every program, so a long run shows its progress and
        # an interrupted one keeps what it measured.
        ordered = [results.get(e["id"]) or previous.get(e["id"]) for e in doc["programs"]]
        write_outputs(args, meta, [r for r in ordered if r is not None], quiet=True)
    if not args.tf_only:
        ordered = [results.get(e["id"]) or previous.get(e["id"]) for e in doc["programs"]]
        write_outputs(args, meta, [r for r in ordered if r is not None])
    return 0


def write_outputs(args, meta, ordered, quiet=False):
    for r in ordered:
        r["blocker"] = blocker_of(r)
        for side in ("tf", "flowloom"):
            if side in r:
                trim(r[side])
    summary = report.summarize(ordered)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "summary": summary, "results": ordered}, f, indent=1)
    with open(args.md, "w") as f:
        f.write(report.markdown(meta, summary, ordered))
    if args.blockers and not quiet:  # others read this file: only whole runs go there
        with open(args.blockers, "w") as f:
            f.write(report.blockers_markdown(meta, summary, ordered))
    if not quiet:
        print(report.headline(summary))


if __name__ == "__main__":
    sys.exit(main())
