"""Runs `flowloom lint` over the corpus programs that finish on flowloom, and tabulates the
findings per program (docs/lint_corpus.md), so each can be read for false positives.

  python3 tools/corpus/lint_corpus.py [--only ID] [--jobs 2]

Needs the fetched corpus and stand-in data ($FLOWLOOM_CORPUS_DIR, see README.md) and
docs/real_programs.json from a corpus run (it picks the programs whose flowloom run finished).
"""

import argparse
import concurrent.futures
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from common import cache_dir, load_manifest  # noqa: E402
from run import prepare, run_program  # noqa: E402


def lint_one(entry, data_dir, timeout):
    with tempfile.TemporaryDirectory(prefix="lint-corpus-") as base:
        cwd, script, _ = prepare(entry, base, data_dir)
        report = os.path.join(base, "lint.json")
        res = run_program([sys.executable, "-m", "flowloom.cli.main", "lint", "--format", "json",
                           "--output", report, script], cwd, timeout)
        if not os.path.exists(report):
            return {"id": entry["id"], "status": "no report", "findings": [],
                    "error": (res["stderr"] or "")[-300:]}
        with open(report) as f:
            data = json.load(f)
        for finding in data["findings"]:
            finding["path"] = os.path.relpath(finding["path"], base) \
                if finding["path"].startswith(base) else finding["path"]
        return {"id": entry["id"], "status": "error" if data["error"] else "ok",
                "findings": data["findings"], "error": data["error"]}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--results", default=os.path.join(ROOT, "docs", "real_programs.json"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "lint_corpus.md"))
    args = parser.parse_args(argv)
    base = cache_dir()
    data_dir = os.path.join(base, "data")
    if not os.path.isdir(data_dir) or not os.path.exists(args.results):
        print("lint_corpus: no fetched corpus or no docs/real_programs.json: skipped")
        return 0
    with open(args.results) as f:
        results = json.load(f)
    finished = {r["id"] for r in results["results"] if r["flowloom"].get("status") == "ok"}
    entries = [e for e in load_manifest()["programs"] if e["id"] in finished and
               (not args.only or e["id"] in args.only)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        out = list(pool.map(lambda e: lint_one(e, data_dir, args.timeout), entries))
    previous = os.path.splitext(args.out)[0] + ".json"
    if args.only and os.path.exists(previous):
        # With --only, the other programs keep their previous results.
        with open(previous) as f:
            kept = [r for r in json.load(f) if r["id"] not in {e["id"] for e in entries}]
        out = kept + out
    out.sort(key=lambda r: r["id"])
    total = sum(len(r["findings"]) for r in out)
    lines = ["# flowloom lint over the corpus", "",
             f"{len(out)} programs that finish on flowloom; {total} findings in "
             f"{sum(1 for r in out if r['findings'])} of them (regenerate: "
             "`python3 tools/corpus/lint_corpus.py`).", "",
             "| program | findings | codes | first finding |", "|---|---|---|---|"]
    for r in out:
        codes = sorted({f["code"] for f in r["findings"]})
        first = r["findings"][0] if r["findings"] else None
        text = f"{first['path']}:{first['line']} {first['message']}" if first else \
            (r["error"] or "")[:80]
        lines.append(f"| {r['id']} | {len(r['findings'])} | {', '.join(codes)} | "
                     f"{text.replace('|', '/')[:160]} |")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(out, f, indent=1)
    print(f"{len(out)} programs, {total} findings -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
