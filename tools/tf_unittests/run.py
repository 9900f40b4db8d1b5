"""Runs TensorFlow 1.15's own unit tests (manifest.json) against flowloom and writes the table.

    python3 dev.py tf-tests [--only SUBSTRING ...] [--jobs N] [--file-timeout S]

Each file runs in its own pytest process with the shim (tools/tf_unittests/shim), a per-test
and a per-file timeout. Per file it records collected, passed, failed, errored and excluded
tests (skips: eager-only, TF2-only, GPU-only, the manifest's exclusions by test name, and
failures on APIs flowloom does not claim), and writes docs/tf_unittests.md and
docs/tf_unittests.json. When the files are not in the cache (see fetch.py) it says so and
exits 0 without running anything.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tools.tf_unittests import fetch as fetch_lib  # noqa: E402
from tools.tf_unittests import report  # noqa: E402


def run_file(entry, cache_dir, exclusions, file_timeout, test_timeout, python, support=None,
             slow=None, edits=()):
    """Runs one test file (with the manifest's `edits` for it applied to a copy, see
    fetch.py); returns its summary (see report.summarize)."""
    path = os.path.join(cache_dir, entry["path"])
    with tempfile.TemporaryDirectory(prefix="tf_unittest_") as work:
        if edits:
            os.makedirs(os.path.join(work, "edited"))
            path = os.path.join(work, "edited", os.path.basename(entry["path"]))
            with open(path, "wb") as f:
                f.write(fetch_lib.edited_text(entry, cache_dir, edits))
        results = os.path.join(work, "results.jsonl")
        test_srcdir, cwd = fetch_lib.runfiles(cache_dir, work)
        env = dict(os.environ)
        env.update({
            "PYTHONPATH": ROOT + os.pathsep + env.get("PYTHONPATH", ""),
            "FLOWLOOM_TF_RESULTS": results,
            "FLOWLOOM_TF_EXCLUDE": json.dumps(exclusions),
            "FLOWLOOM_TF_SUPPORT": json.dumps(support or {}),
            "FLOWLOOM_TF_TEST_TIMEOUT": str(test_timeout),
            "FLOWLOOM_TF_SLOW": json.dumps(slow or {}),
            "TEST_TMPDIR": work,
            "TEST_SRCDIR": test_srcdir,
            "OMP_NUM_THREADS": env.get("OMP_NUM_THREADS", "1"),
            "OPENBLAS_NUM_THREADS": env.get("OPENBLAS_NUM_THREADS", "1"),
        })
        # Python's default warning filters, as TF's own test runner has them (deprecations
        # hidden, other warnings shown): tests that count warnings see flowloom's.
        cmd = [python, "-m", "pytest", "-q", "-p", "tools.tf_unittests.plugin",
               "-p", "no:cacheprovider", "--rootdir", work, "-W", "ignore::DeprecationWarning",
               "-W", "ignore::PendingDeprecationWarning", path]
        start = time.time()
        timed_out = False
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=file_timeout)
            tail = (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired as e:
            timed_out = True
            tail = ((e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes)
                    else (e.stdout or ""))[-3000:]
        records = []
        if os.path.exists(results):
            with open(results) as f:
                records = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(cache_dir, entry["path"]), encoding="utf-8") as f:
        static_count = report.count_test_methods(f.read())
    summary = report.summarize(entry, records, timed_out=timed_out, output_tail=tail,
                               static_count=static_count)
    summary["seconds"] = round(time.time() - start, 1)
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(description="TF 1.15 unit tests against flowloom")
    parser.add_argument("--only", nargs="*", default=None,
                        help="run only files whose path contains one of these")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--file-timeout", type=int, default=300)
    parser.add_argument("--test-timeout", type=int, default=30)
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"),
                        help="where tf_unittests.md/.json go (a partial run merges into them)")
    args = parser.parse_args(argv)
    manifest = fetch_lib.load_manifest()
    cache_dir = fetch_lib.default_cache_dir(manifest)
    entries = [e for e in manifest["files"]
               if not args.only or any(s in e["path"] for s in args.only)]
    absent = [e["path"] for e in entries + manifest.get("support", [])
              if not os.path.exists(os.path.join(cache_dir, e["path"]))]
    if absent:
        print(f"[tf-tests] SKIPPED: {len(absent)} of {len(entries)} TensorFlow test files are "
              f"not in {cache_dir}; fetch them first: python3 tools/tf_unittests/fetch.py "
              "(--git-dir DIR for a local tensorflow clone)")
        return 0
    missing_data = [e["path"] for e in manifest.get("data", [])
                    if not os.path.exists(os.path.join(cache_dir, e["path"]))]
    if missing_data:
        print(f"[tf-tests] WARNING: {len(missing_data)} data files (TF's test images) are not "
              f"in {cache_dir}: the tests that read them will fail; fetch them with "
              "python3 tools/tf_unittests/fetch.py --git-dir DIR")
    python = sys.executable
    probe = subprocess.run([python, "-c", "import flowloom.test.test_util"], cwd=ROOT,
                           capture_output=True, text=True)
    if probe.returncode:
        print("[tf-tests] SKIPPED: flowloom.test.test_util (tf.test.TestCase) does not import:\n"
              + probe.stderr[-1500:])
        return 0
    summaries = []
    merge = bool(args.only)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_file, e, cache_dir,
                               manifest["exclusions"].get(e["path"], {}),
                               args.file_timeout, args.test_timeout, python,
                               fetch_lib.support_modules(manifest, cache_dir),
                               manifest.get("slow", {}).get(e["path"], {}),
                               manifest.get("edits", {}).get(e["path"], ())): e
                   for e in entries}
        for future in concurrent.futures.as_completed(futures):
            s = future.result()
            summaries.append(s)
            print(f"[tf-tests] {s['path']}: {s['passed']}/{s['fair']} fair passed, "
                  f"{s['failed']} failed, {s['errored']} errored, {s['excluded']} excluded "
                  f"({s['seconds']} s){' TIMED OUT' if s['timed_out'] else ''}", flush=True)
            # Written after every file, so an interrupted run still leaves its table.
            report.write(summaries, manifest, args.out, merge=merge)
    total = report.totals(report.load(args.out)["files"])
    print(f"[tf-tests] overall: {total['passed']}/{total['fair']} fair tests pass "
          f"({total['rate']:.1f}%) in {total['files']} files; table in "
          f"{os.path.join(args.out, 'tf_unittests.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
