"""The supervisor of an on-demand local Ray head: `python -m flowloom.distributed.head`.

Runs `ray start --head --block` in its own process group, writes `<dir>/ready` once the head
is up, and stops the head (the whole group: GCS, raylet, Ray workers) when none of the
processes registered in `<dir>/tasks/` has been alive for a few seconds, when none registered
within the first two minutes, or when it is sent SIGTERM/SIGINT; then it removes Ray's
session folder (unless FLOWLOOM_RAY_KEEP_LOGS is set).
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

IDLE_EXIT_S = 3.0
# The address of a one-machine cluster: a loopback address that Ray does not replace by the
# machine's network address, as it does 127.0.0.1 and localhost.
LOOPBACK = "127.0.0.2"
NOBODY_EXIT_S = 120.0


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped) counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _live_tasks(folder):
    tasks = os.path.join(folder, "tasks")
    live = 0
    for name in os.listdir(tasks):
        if name.isdigit() and _alive(int(name)):
            live += 1
        else:
            try:
                os.remove(os.path.join(tasks, name))
            except OSError:
                pass
    return live


def _stop(proc):
    if proc.poll() is not None:
        return
    try:
        # Ray drains for half a minute after SIGTERM; nothing of the cluster is left to drain.
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=2)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--token-path", required=True)
    parser.add_argument("--num-cpus", type=int, default=int(os.environ.get(
        "FLOWLOOM_RAY_NUM_CPUS", "0")))
    parser.add_argument("--resources", default=os.environ.get("FLOWLOOM_RAY_HEAD_RESOURCES", ""))
    args = parser.parse_args(argv)
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=args.token_path)
    env.pop("RAY_AUTH_TOKEN", None)
    env.pop("RAY_ADDRESS", None)
    store_mb = int(os.environ.get("FLOWLOOM_RAY_OBJECT_STORE_MB", "1024"))
    cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
           f"--port={args.port}", f"--node-ip-address={LOOPBACK}",
           f"--num-cpus={args.num_cpus}", "--include-dashboard=false",
           "--disable-usage-stats", f"--object-store-memory={store_mb * 1024 * 1024}",
           f"--temp-dir={os.path.join(args.dir, 'ray')}"]
    if args.resources:
        cmd.append(f"--resources={args.resources}")
    log = open(os.path.join(args.dir, "ray_head.log"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    stopping = []

    def on_signal(signum, frame):
        stopping.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    started = time.monotonic()
    ready = os.path.join(args.dir, "ready")
    seen_task = False
    idle_since = None
    try:
        while not stopping and proc.poll() is None:
            time.sleep(0.5)
            if not os.path.exists(ready):
                with open(os.path.join(args.dir, "ray_head.log")) as f:
                    if "--block" in f.read():
                        with open(ready, "w") as r:
                            r.write(str(os.getpid()))
                        print(f"[flowloom] Ray head up at {LOOPBACK}:{args.port}", flush=True)
                continue
            live = _live_tasks(args.dir)
            seen_task = seen_task or live > 0
            if live:
                idle_since = None
            elif seen_task or time.monotonic() - started > NOBODY_EXIT_S:
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since > IDLE_EXIT_S:
                    print("[flowloom] no task of the cluster is alive: stopping the Ray head",
                          flush=True)
                    break
    finally:
        if os.path.exists(ready):
            os.remove(ready)
        _stop(proc)
        if not os.environ.get("FLOWLOOM_RAY_KEEP_LOGS"):
            # Ray's session folders (logs, sockets) of a stopped head are of no further use.
            shutil.rmtree(os.path.join(args.dir, "ray"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
