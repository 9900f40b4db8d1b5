"""ClusterSpec cases, run under TF 1.15 (tests/data/record_distributed_api.py) and flowloom
(test_cluster_spec.py): every case's result or error class and message."""


def _normal(value, cluster_pb2):
    if isinstance(value, cluster_pb2.ClusterDef):
        return repr([(j.name, sorted(j.tasks.items())) for j in value.job])
    text = repr(value)
    if " object at 0x" in text:
        return "<" + type(value).__name__ + " object>"
    return text


def run(tf, cluster_pb2):
    """[[label, "ok" or error class name, repr or message], ...] of every case."""
    out = []

    def rec(label, fn):
        try:
            out.append([label, "ok", _normal(fn(), cluster_pb2)])
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append([label, type(e).__name__, str(e)])

    C = tf.train.ClusterSpec
    d = {"worker": ["w0:2222", "w1:2222"], "ps": ["ps0:2222"]}
    sp = {"worker": {1: "w1:2222", 3: "w3:2222"}, "ps": ["ps0:2222"], "empty": []}
    forms = [("d", d), ("sp", sp), ("tuple", {"a": ("x:1",)}), ("bytes", {b"b": [b"x:1"]})]
    for lab, arg in forms:
        rec(lab + ".as_dict", lambda: C(arg).as_dict())
        rec(lab + ".jobs", lambda: sorted(C(arg).jobs))
        rec(lab + ".str", lambda: str(C(arg)))
        rec(lab + ".def", lambda: C(arg).as_cluster_def())
        rec(lab + ".bool", lambda: bool(C(arg)))
    for job in ["worker", "ps", "nojob", "empty"]:
        rec("sp.job_tasks." + job, lambda: C(sp).job_tasks(job))
        rec("sp.num_tasks." + job, lambda: C(sp).num_tasks(job))
        rec("sp.task_indices." + job, lambda: C(sp).task_indices(job))
        for i in [0, 1, 3, "1"]:
            rec("sp.task_address.%s.%r" % (job, i), lambda: C(sp).task_address(job, i))
    rec("bad.list", lambda: C(["a"]))
    rec("bad.none", lambda: C(None))
    rec("bad.tasks", lambda: C({"a": "x:1"}))
    rec("bad.tasks_int", lambda: C({"a": 3}))
    rec("bad.jobname", lambda: C({3: ["x:1"]}))
    rec("bad.addr", lambda: C({"a": [3]}))
    rec("bad.strkey", lambda: C({"a": {"x": "x:1"}}))
    rec("bad.negkey", lambda: C({"a": {-1: "x:1"}}))
    rec("empty.bool", lambda: bool(C({})))
    rec("empty.str", lambda: str(C({})))
    rec("empty.dict", lambda: C({}).as_dict())
    rec("eq.same", lambda: C(d) == C(d))
    rec("eq.dict", lambda: C(d) == {"worker": {0: "w0:2222", 1: "w1:2222"}, "ps": {0: "ps0:2222"}})
    rec("eq.dictlist", lambda: C(d) == d)
    rec("ne", lambda: C(d) != C(sp))
    rec("hash", lambda: hash(C(d)) is not None)
    cd = C(d).as_cluster_def()
    rec("fromdef.as_dict", lambda: C(cd).as_dict())
    rec("fromdef.eq", lambda: C(cd) == C(d))
    rec("fromdef.same_obj", lambda: C(cd).as_cluster_def() is cd)
    rec("fromcs.as_dict", lambda: C(C(sp)).as_dict())
    rec("fromcs.same_obj", lambda: C(C(d)).as_cluster_def() is cd)
    rec("jobs.order", lambda: C({"z": ["a:1"], "a": ["b:1"]}).jobs)
    rec("fromdef.jobs.order", lambda: C(C({"z": ["a:1"], "a": ["b:1"]}).as_cluster_def()).jobs)
    rec("job_tasks.list_is_copy", lambda: C(d).job_tasks("worker") is C(d).job_tasks("worker"))
    rec("task_address.type", lambda: type(C(cd).task_address("ps", 0)).__name__)
    rec("bytesaddr.as_dict_type", lambda: type(C({"a": [b"x:1"]}).task_address("a", 0)).__name__)
    return out
