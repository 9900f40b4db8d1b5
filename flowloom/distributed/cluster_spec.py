"""`tf.train.ClusterSpec`: the jobs of a cluster and the network address of each task."""

from flowloom.proto import cluster_pb2

_BAD_CLUSTER = ("`cluster` must be a dictionary mapping one or more job names to lists of "
                "network addresses, or a `ClusterDef` protocol buffer")


def _as_bytes(value, what):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"{what} {value!r} must be bytes or unicode")


def _tasks_of(job_def):
    return {index: address for index, address in job_def.tasks.items()}


class ClusterSpec:
    """Represents a cluster as a set of "tasks", organized into "jobs".

    A cluster is described by a dictionary from job names to the network addresses of their
    tasks: a list (task `i` is the `i`-th address) or, for sparse jobs, a dictionary from task
    index to address.

    ```python
    cluster = tf.train.ClusterSpec({"worker": ["worker0.example.com:2222",
                                               "worker1.example.com:2222"],
                                    "ps": ["ps0.example.com:2222"]})
    cluster.task_address("worker", 1)   # "worker1.example.com:2222"
    sparse = tf.train.ClusterSpec({"worker": {1: "worker1.example.com:2222"}})
    ```

    Args:
      cluster: a dictionary mapping job names to lists (or index -> address dictionaries) of
        network addresses, a `tf.train.ClusterDef` protocol buffer, or another `ClusterSpec`.

    Raises:
      TypeError: `cluster` is none of those, a job's tasks are neither a list nor a dictionary,
        or a job name or task address is not a string.
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = dict(tasks.items())
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a "
                                    "dictionary from integers to strings.")
                self._cluster_spec[job_name] = job_tasks
            self._make_cluster_def()
        elif isinstance(cluster, cluster_pb2.ClusterDef):
            # The given protocol buffer is kept (not copied), as TF does.
            self._cluster_def = cluster
            self._cluster_spec = {job.name: _tasks_of(job) for job in cluster.job}
        elif isinstance(cluster, ClusterSpec):
            self._cluster_def = cluster_pb2.ClusterDef()
            self._cluster_def.MergeFrom(cluster.as_cluster_def())
            self._cluster_spec = {job.name: _tasks_of(job) for job in self._cluster_def.job}
        else:
            raise TypeError(_BAD_CLUSTER)

    def __bool__(self):
        return bool(self._cluster_spec)

    # Equality compares the job -> {index: address} mapping, so a ClusterSpec also equals
    # the plain dictionary of dictionaries it holds.
    def __eq__(self, other):
        return self._cluster_spec == other

    def __ne__(self, other):
        return self._cluster_spec != other

    __hash__ = None

    def __str__(self):
        values = self.as_dict()
        items = [repr(k) + ": " + repr(values[k]) for k in sorted(values)]
        return "ClusterSpec({" + ", ".join(items) + "})"

    def as_dict(self):
        """Returns a dictionary from job names to their tasks.

        Returns:
          A dict whose values are lists of addresses for jobs with dense task indices
          (0..n-1), and `{index: address}` dictionaries for sparse (or empty) jobs.
        """
        ret = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    def as_cluster_def(self):
        """Returns the `tf.train.ClusterDef` protocol buffer of this cluster (jobs sorted by
        name)."""
        return self._cluster_def

    @property
    def jobs(self):
        """The list of job names in this cluster."""
        return list(self._cluster_spec.keys())

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name):
        """Returns the number of tasks defined in the job `job_name`.

        Raises:
          ValueError: `job_name` is not a job of this cluster.
        """
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """Returns the sorted list of valid task indices of the job `job_name`.

        Raises:
          ValueError: `job_name` is not a job of this cluster.
        """
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name, task_index):
        """Returns the address of task `task_index` of the job `job_name`.

        Raises:
          ValueError: no such job, or no task with that index in it.
        """
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job "
                             f"{job_name!r}") from None

    def job_tasks(self, job_name):
        """Returns the list of addresses of the job `job_name`, indexed by task; the holes of
        a sparse job are `None`.

        Raises:
          ValueError: `job_name` is not a job of this cluster (or the job has no task).
        """
        job = self._job(job_name)
        ret = [None] * (max(job.keys()) + 1)
        for index, address in job.items():
            ret[index] = address
        return ret

    def _make_cluster_def(self):
        self._cluster_def = cluster_pb2.ClusterDef()
        # Sorted by job name so the protocol buffer is deterministic.
        for job_name, tasks in sorted(self._cluster_spec.items()):
            name = _as_bytes(job_name, "Job name")
            job_def = self._cluster_def.job.add()
            job_def.name = name
            for index, address in sorted(tasks.items()):
                if not isinstance(index, int) or isinstance(index, bool):
                    raise TypeError(f"{index!r} has type {type(index).__name__}, but expected "
                                    "one of: int")
                job_def.tasks[index] = _as_bytes(address, "Task address").decode("utf-8")
