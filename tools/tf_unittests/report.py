"""Turns the per-test records of run.py into per-file summaries, failure causes and the table."""

import collections
import json
import os
import re

UNCLAIMED_MARK = "[tf-shim unclaimed:"
_RANK = {"passed": 0, "skipped": 1, "teardown_error": 2, "error": 3, "failed": 3}
MD_FAILURES_PER_FILE = 150


def cause(message):
    """A short, groupable cause for a failure message."""
    first = (message or "").strip().splitlines()[0] if (message or "").strip() else "unknown"
    m = re.search(r"flowloom has no ([\w.]+)", first)
    if m:
        return f"missing {m.group(1)}"
    if "TestTimeout" in first:
        return "test timeout"
    m = re.search(r"No module named '([\w.]+)'", first)
    if m:
        return f"no module {m.group(1)}"
    first = re.sub(r"0x[0-9a-f]+", "0x…", first)
    first = re.sub(r"'([^']{40})[^']+'", r"'\1…'", first)
    first = re.sub(r"\d+(\.\d+)?", "N", first)
    return first[:140]


def _unclaimed_reason(message):
    m = re.search(re.escape(UNCLAIMED_MARK) + r"\s*([^\]]+)\]", message or "")
    return m.group(1).strip() if m else None


def count_test_methods(source):
    """The number of `def test...(self` methods in a test file's text."""
    return len(re.findall(r"^\s+def test\w*\(self", source, flags=re.M))


def summarize(entry, records, timed_out=False, output_tail="", static_count=0):
    """One file's summary from the plugin's records.

    A file that fails to import counts its statically found test methods (`static_count`)
    as errored, so an import failure lowers the fair pass rate instead of vanishing.
    """
    collected = sum(r["count"] for r in records if r.get("event") == "collected")
    collect_errors = [r["message"] for r in records if r.get("event") == "collect_error"]
    final = {}
    for r in records:
        if "test" not in r:
            continue
        prev = final.get(r["test"])
        if prev is None or _RANK[r["outcome"]] > _RANK[prev["outcome"]]:
            final[r["test"]] = r
    passed = failed = errored = 0
    excluded = collections.Counter()
    failures = []
    for key in sorted(final):
        r = final[key]
        outcome, message = r["outcome"], r.get("message", "")
        if outcome == "passed":
            passed += 1
        elif outcome == "skipped":
            reason = re.sub(r"^Skipped:\s*", "", message or "")
            excluded[re.sub(r"^excluded:\s*", "", reason)[:100]] += 1
        elif _unclaimed_reason(message):
            excluded["uses an unclaimed API: " + _unclaimed_reason(message)] += 1
        else:
            if outcome == "failed":
                failed += 1
            else:
                errored += 1
            failures.append({"test": key, "cause": cause(message),
                             "message": (message or "")[:500]})
    status = "ok"
    if collect_errors and not final:
        errored += static_count
        collected = max(collected, static_count)
        failures.append({"test": f"({static_count} tests)", "cause": "file does not import: "
                         + cause(collect_errors[-1].strip().splitlines()[-1]), "message": ""})
    if collect_errors:
        status = "collection error: " + cause(collect_errors[-1].strip().splitlines()[-1])
    elif timed_out:
        status = "file timeout"
    n_excluded = sum(excluded.values())
    fair = passed + failed + errored
    return {"path": entry["path"], "group": entry.get("group", ""), "status": status,
            "collected": collected, "passed": passed, "failed": failed, "errored": errored,
            "excluded": n_excluded, "fair": fair,
            "rate": round(100.0 * passed / fair, 1) if fair else None,
            "excluded_reasons": dict(excluded.most_common()), "failures": failures,
            "timed_out": timed_out,
            "output_tail": output_tail if (collect_errors or timed_out) else ""}


def account_for_unreported(s):
    """Counts collected tests that left no result (the process died or timed out) as errored.

    Idempotent: after it, collected == passed + failed + errored + excluded."""
    missing = s["collected"] - (s["passed"] + s["failed"] + s["errored"] + s["excluded"])
    if missing > 0:
        s["errored"] += missing
        s["fair"] = s["passed"] + s["failed"] + s["errored"]
        s["rate"] = round(100.0 * s["passed"] / s["fair"], 1) if s["fair"] else None
        why = "file timeout: not run" if s["timed_out"] else "process ended before they ran"
        s["failures"].append({"test": f"({missing} tests)", "cause": why, "message": ""})
        if s["status"] == "ok":
            s["status"] = "ended early"
    return s


def totals(summaries):
    t = {k: sum(s[k] for s in summaries)
         for k in ("collected", "passed", "failed", "errored", "excluded", "fair")}
    t["files"] = len(summaries)
    t["rate"] = 100.0 * t["passed"] / t["fair"] if t["fair"] else 0.0
    t["files_at_95"] = sum(1 for s in summaries if s["rate"] is not None and s["rate"] >= 95)
    return t


def top_causes(summaries, n=40):
    counter = collections.Counter()
    files = collections.defaultdict(set)
    for s in summaries:
        for f in s["failures"]:
            weight = int(f["test"][1:].split()[0]) if f["test"].startswith("(") else 1
            counter[f["cause"]] += weight
            files[f["cause"]].add(os.path.basename(s["path"]))
    return [(c, k, sorted(files[c])) for c, k in counter.most_common(n)]


def load(out_dir):
    path = os.path.join(out_dir, "tf_unittests.json")
    if not os.path.exists(path):
        return {"files": []}
    with open(path) as f:
        return json.load(f)


def write(summaries, manifest, out_dir, merge=False):
    """Writes tf_unittests.json and tf_unittests.md (merging into a previous full run)."""
    by_path = {}
    if merge:
        by_path = {s["path"]: s for s in load(out_dir)["files"]}
    for s in summaries:
        by_path[s["path"]] = s
    for s in by_path.values():
        account_for_unreported(s)
    order = {e["path"]: i for i, e in enumerate(manifest["files"])}
    files = sorted((s for p, s in by_path.items() if p in order), key=lambda s: order[s["path"]])
    not_run = [e["path"] for e in manifest["files"] if e["path"] not in by_path]
    os.makedirs(out_dir, exist_ok=True)
    data = {"repo": manifest["repo"], "tag": manifest["tag"], "commit": manifest["commit"],
            "totals": totals(files), "files": files, "not_run": not_run,
            "edits": {p: [e["why"] for e in v] for p, v in manifest.get("edits", {}).items()}}
    with open(os.path.join(out_dir, "tf_unittests.json"), "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "tf_unittests.md"), "w") as f:
        f.write(markdown(data))


def main():
    """Re-renders docs/tf_unittests.md from docs/tf_unittests.json."""
    import sys

    from tools.tf_unittests import fetch

    out_dir = sys.argv[1] if len(sys.argv) > 1 else "docs"
    write(load(out_dir)["files"], fetch.load_manifest(), out_dir)


def _group_totals(files):
    groups = []
    for s in files:
        if s["group"] not in groups:
            groups.append(s["group"])
    return [(g, totals([s for s in files if s["group"] == g])) for g in groups]


def _pct(rate):
    return "—" if rate is None else f"{rate:.1f}%"


def markdown(data):
    t = data["totals"]
    lines = [
        "# TensorFlow 1.15's unit tests on flowloom",
        "",
        f"TensorFlow's own Python tests at {data['tag']} ({data['repo']}@{data['commit'][:10]}),"
        " run against flowloom through `tools/tf_unittests/shim` (module paths mapped onto "
        "flowloom, TF's test harness; no TF behaviour). Generated by `python3 dev.py tf-tests` "
        "(files fetched by `tools/tf_unittests/fetch.py`; the list is "
        "`tools/tf_unittests/manifest.json`).",
        "",
        "TF 1.15's tests were written for NumPy 1.x (TF 1.15.5 pins NumPy 1.18); they run here "
        "under NumPy 2 with two documented adaptations of the test's own NumPy code, never of "
        "what it checks: the test process restores the NumPy names NumPy 2 removed (`np.object`, "
        "`np.string_`, `np.NINF`, `np.asfarray`, ...) with their 1.x values and prints scalars "
        "as NumPy 1.x did (`legacy=\"1.25\"`), and where NumPy 2 changed a semantics no alias "
        f"restores, the manifest's `edits` ({sum(len(v) for v in data.get('edits', {}).values())}"
        f" in {len(data.get('edits', {}))} files, listed at the end with their reasons) are "
        "applied to TF's text when it is fetched.",
        "",
        f"**Overall: {t['passed']} of {t['fair']} fair tests pass ({t['rate']:.1f}%) in "
        f"{t['files']} files**; {t['files_at_95']} files at ≥ 95%. Collected {t['collected']}, "
        f"failed {t['failed']}, errored {t['errored']}, excluded {t['excluded']}.",
        "",
        "By group: " + "; ".join(
            f"{g} {gt['passed']}/{gt['fair']} ({gt['rate']:.1f}%, {gt['files']} files)"
            for g, gt in _group_totals(data["files"])) + ".",
        "",
        "Fair = collected − excluded. Excluded: tests TF itself skips here (GPU-only), "
        "`run_v2_only` and control-flow-v2 tests, tests skipped by name in the manifest (with "
        "the reason), and tests that touch an API flowloom does not claim (eager execution, "
        "Keras, TF2 tracking, ragged). The eager halves of `run_in_graph_and_eager_modes` "
        "tests are not run; their graph halves are.",
        "",
        "| group | file | status | collected | passed | failed | errored | excluded | fair pass |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in data["files"]:
        name = s["path"].replace("tensorflow/python/", "")
        lines.append(f"| {s['group']} | `{name}` | {s['status']} | {s['collected']} | "
                     f"{s['passed']} | {s['failed']} | {s['errored']} | {s['excluded']} | "
                     f"{_pct(s['rate'])} |")
    if data.get("not_run"):
        lines += ["", f"Not run in the last run ({len(data['not_run'])} files; "
                  "`python3 dev.py tf-tests --only NAME` adds them): "
                  + ", ".join(f"`{p.replace('tensorflow/python/', '')}`"
                              for p in data["not_run"])]
    lines += ["", "## Top failure causes", "", "| tests | cause | files |", "| ---: | --- | --- |"]
    for c, k, files in top_causes(data["files"]):
        shown = ", ".join(files[:6]) + (f" (+{len(files) - 6})" if len(files) > 6 else "")
        lines.append(f"| {k} | `{c.replace('|', '/')}` | {shown} |")
    excl = collections.Counter()
    for s in data["files"]:
        excl.update(s["excluded_reasons"])
    lines += ["", "## Exclusions by reason", "", "| tests | reason |", "| ---: | --- |"]
    for reason, k in excl.most_common():
        lines.append(f"| {k} | {reason.replace('|', '/')} |")
    lines += ["", "## Failures by file", "",
              f"Each failing test with its cause (at most {MD_FAILURES_PER_FILE} per file here; "
              "all of them, with messages, in `tf_unittests.json`)."]
    for s in data["files"]:
        if not s["failures"]:
            continue
        lines += ["", f"### `{s['path'].replace('tensorflow/python/', '')}`", ""]
        for f in s["failures"][:MD_FAILURES_PER_FILE]:
            lines.append(f"- `{f['test']}`: {f['cause']}")
        if len(s["failures"]) > MD_FAILURES_PER_FILE:
            lines.append(f"- … {len(s['failures']) - MD_FAILURES_PER_FILE} more")
    if data.get("edits"):
        lines += ["", "## Edits of TF's test code (NumPy 2)", "",
                  "Applied at fetch time (`edits` in the manifest: old text, new text, count).", ""]
        for path, whys in sorted(data["edits"].items()):
            for why in dict.fromkeys(whys):
                lines.append(f"- `{path.replace('tensorflow/python/', '')}`: {why}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
