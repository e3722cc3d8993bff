"""Starts and stops granite processes on loopback for the SQL runner and the integration tests.

Each process runs in its own session (process group) with its stdout and stderr captured by a
reader thread, which also watches for the "granite ... listening on 127.0.0.1:PORT" line that tells
the process is serving (port 0 makes it pick an ephemeral port; the line has the real one).
Stopping sends SIGTERM, waits up to 10 s, then SIGKILLs the whole process group. Children get
PR_SET_PDEATHSIG=SIGTERM so a cluster never outlives the test process that started it.

Classes:
  GraniteProcess  one granite subcommand (worker, coordinator, local) and its captured log
  LocalCluster    `granite local --workers N --data DIR --port 0`
  SplitCluster    N `granite worker` processes and one `granite coordinator`, restartable one by one
"""

import collections
import ctypes
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START_TIMEOUT = float(os.environ.get("GRANITE_START_TIMEOUT", "60"))
STOP_GRACE = 10.0

# Makes granite_client importable from a source checkout even when it is not pip-installed.
_CLIENT_DIR = os.path.join(REPO_ROOT, "client", "python")
if _CLIENT_DIR not in sys.path:
    sys.path.insert(0, _CLIENT_DIR)


_running = set()  # GraniteProcess objects started and not yet stopped, for stop_all().


_HTTP_RE = re.compile(r"granite \w+ HTTP on http://[^ ]*:(\d+)/")


def stop_all():
    """Stops every process this module started that is still running (for signal handlers)."""
    for proc in list(_running):
        proc.stop(grace=2.0)


def rss_kb(pid):
    """Returns the resident set size of process `pid` in KiB (VmRSS of /proc/<pid>/status)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for pid %d" % pid)


ALL_CONNECTION_TRIES_FAILED = 279


def wait_for_all_workers(client, seconds=30):
    """Waits (bounded) until a DDL statement reaches every worker again, as after a worker's
    restart: the coordinator's channel to it may still be in its reconnect backoff."""
    import granite_client  # cluster.py puts client/python on sys.path first
    deadline = time.monotonic() + seconds
    while True:
        try:
            client.query("DROP TABLE IF EXISTS probe_all_workers_answer")
            return
        except granite_client.GraniteError as e:
            if e.code != ALL_CONNECTION_TRIES_FAILED or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class ClusterError(Exception):
    """Raises when a granite process fails to start or dies."""


def fragments_in_flight(rows):
    """Fragments the workers started and have not finished, from system.events. `rows(sql)`
    returns a query's rows as lists of strings."""
    counts = {}
    for event, worker, value in rows(
            "SELECT event, worker, value FROM system.events "
            "WHERE event IN ('FragmentsStarted', 'FragmentsFinished') AND worker != 'coordinator'"):
        counts.setdefault(worker, {})[event] = int(value)
    return sum(c.get("FragmentsStarted", 0) - c.get("FragmentsFinished", 0)
               for c in counts.values())


def event_totals(client, like):
    """{event: value summed over the coordinator and workers} of system.events whose name is
    LIKE `like`, through a granite_client Client."""
    out = {}
    text = client.execute("SELECT event, sum(value) FROM system.events WHERE event LIKE '%s' "
                          "GROUP BY event" % like).output.decode()
    for line in text.splitlines():
        name, value = line.split("\t")
        out[name] = int(value)
    return out


def wait_until(what, condition, seconds):
    """Polls condition() every 50 ms until it holds; AssertionError naming `what` after
    `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("not within %d s: %s" % (seconds, what))


def find_granite(explicit=None):
    """Returns the argv prefix that runs granite.

    explicit (a path or a shell-quoted command), else $GRANITE_BIN, else the newest build*/granite
    under the repository root. Raises ClusterError when none is found.
    """
    spec = explicit or os.environ.get("GRANITE_BIN")
    if spec:
        return shlex.split(spec)
    candidates = [p for p in glob.glob(os.path.join(REPO_ROOT, "build*", "granite"))
                  if os.access(p, os.X_OK)]
    if not candidates:
        raise ClusterError("no granite binary: pass --granite, set GRANITE_BIN, or build it")
    return [max(candidates, key=os.path.getmtime)]


def _set_parent_death_signal():
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class GraniteProcess:
    """Runs one granite subcommand and captures its output.

    Thread-safety: the reader thread appends to the log under lock_; other methods are for the
    thread that created the object.
    """

    def __init__(self, argv, name, role, log_lines=400):
        """role: the subcommand ("worker", "coordinator", "local") whose listening line to await;
        `granite local` may relay its children's lines, which must not be taken for its own."""
        self.argv = list(argv)
        self.name = name
        self._listen_re = re.compile(
            r"granite %s listening on ([0-9.]+|\[[0-9a-f:]+\]|localhost):(\d+)" % role)
        self.host = None
        self.port = None
        self._log = collections.deque(maxlen=log_lines)
        self._lock = threading.Lock()
        self._listening = threading.Event()
        self.http_port = None  # from the "HTTP on http://HOST:PORT/" line, printed before it
        self._proc = None
        self._reader = None

    # KNOWN DEFECT, not understood yet (session notes of 2026-11-28): about one start in a few
    # hundred under load aborts before listening with gRPC's "epoll_wait error: Bad file
    # descriptor" (seen for `worker --port 0` and `coordinator --port 0`; session 37 saw two in a
    # row at load average 6, and none in 400 starts under strace). Such a start is retried up to
    # twice, with a line on stderr, so the suites test what they are about; any other early exit
    # fails at once. Remove this when the defect is fixed.
    _EPOLL_ABORT = "epoll_wait error: Bad file descriptor"
    _EPOLL_RETRIES = 2

    def start(self, timeout=START_TIMEOUT):
        """Starts the process and waits for its listening line. Raises ClusterError on failure."""
        for attempt in range(self._EPOLL_RETRIES + 1):
            try:
                return self._start_once(timeout)
            except ClusterError as e:
                if self._EPOLL_ABORT not in str(e) or attempt == self._EPOLL_RETRIES:
                    raise
                sys.stderr.write("cluster: retrying a start that hit the known epoll abort:\n%s\n"
                                 % e)

    def _start_once(self, timeout):
        self._listening.clear()
        self._proc = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_set_parent_death_signal)
        _running.add(self)
        self._reader = threading.Thread(target=self._read, args=(self._proc,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not self._listening.wait(0.05):
            if self._proc.poll() is not None:
                self._reader.join(2)
                raise ClusterError("%s exited with code %s before listening\n  command: %s\n%s" % (
                    self.name, self._proc.returncode, shlex.join(self.argv), self.log_tail()))
            if time.monotonic() > deadline:
                self.stop()
                raise ClusterError("%s did not print its listening line within %.0f s\n"
                                   "  command: %s\n%s" % (self.name, timeout,
                                                          shlex.join(self.argv), self.log_tail()))
        return self

    def _read(self, proc):
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                self._log.append(line)
            m = _HTTP_RE.search(line)
            if m:
                self.http_port = int(m.group(1))
            if not self._listening.is_set():
                m = self._listen_re.search(line)
                if m:
                    self.host = m.group(1).strip("[]")
                    self.port = int(m.group(2))
                    self._listening.set()
        proc.stdout.close()

    @property
    def pid(self):
        return self._proc.pid if self._proc else None

    def alive(self):
        return self._proc is not None and self._proc.poll() is None

    def returncode(self):
        return self._proc.poll() if self._proc else None

    def log_tail(self, n=40):
        with self._lock:
            lines = list(self._log)[-n:]
        if not lines:
            return "  (%s printed nothing)" % self.name
        return "\n".join("  [%s] %s" % (self.name, l) for l in lines)

    def kill9(self):
        """Kills the process with SIGKILL (a crash) and reaps it."""
        if self._proc is None:
            return
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._proc.wait()
        _running.discard(self)
        if self._reader:
            self._reader.join(5)

    def stop(self, grace=STOP_GRACE):
        """Stops the process: SIGTERM, then SIGKILL of its process group after grace seconds.

        Returns the exit code (negative for a signal), or None when it was not running.
        """
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            try:
                self._proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self._proc.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        # Anything left in the group (the process itself after the grace period, or children it
        # failed to stop) is killed.
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._proc.wait()
        _running.discard(self)
        if self._reader:
            self._reader.join(5)
        return self._proc.returncode


class _ClusterBase:
    host = "127.0.0.1"
    port = None

    def client(self, **kwargs):
        """Returns a granite_client.Client connected to the coordinator."""
        import granite_client
        return granite_client.connect(self.host, self.port, **kwargs)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


class LocalCluster(_ClusterBase):
    """Runs `granite local --workers N --data DIR --port 0` with a fresh temporary data folder.

    keep_data: leave the data folder in place after stop() (for debugging).
    """

    def __init__(self, granite, workers=1, data_dir=None, threads=None, keep_data=False,
                 extra_args=()):
        self.granite = list(granite)
        self.workers = workers
        self._own_data = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="granite-test-")
        self.keep_data = keep_data
        args = self.granite + ["local", "--workers", str(workers), "--data", self.data_dir,
                               "--port", "0"]
        if threads:
            args += ["--threads", str(threads)]
        self.process = GraniteProcess(args + list(extra_args), "local", "local")

    def start(self, timeout=START_TIMEOUT):
        try:
            self.process.start(timeout)
        except ClusterError:
            self._remove_data()
            raise
        self.host, self.port = self.process.host, self.process.port
        self.http_port = self.process.http_port  # ClickHouse's HTTP interface (ephemeral)
        return self

    def log_tail(self, n=40):
        return self.process.log_tail(n)

    def stop(self):
        code = self.process.stop()
        self._remove_data()
        return code

    def _remove_data(self):
        if self._own_data and not self.keep_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)


class SplitCluster(_ClusterBase):
    """Runs N `granite worker` processes and one `granite coordinator` as separate processes.

    Workers first pick ephemeral ports; restart_worker(i) reuses worker i's port and data folder,
    restart_coordinator() the coordinator's port.
    """

    def __init__(self, granite, workers=2, data_root=None, threads=None, replicas=1,
                 coordinator_args=()):
        """workers counts processes; with replicas R > 1, R consecutive workers form a shard
        (`granite coordinator --replicas R`)."""
        self.granite = list(granite)
        self.replicas = replicas
        self.coordinator_args = list(coordinator_args)
        self._own_data = data_root is None
        self.data_root = data_root or tempfile.mkdtemp(prefix="granite-split-")
        self.threads = threads
        self.worker_ports = [0] * workers
        self.workers = [None] * workers
        self.coordinator = None
        self.coordinator_port = 0

    def worker_dir(self, i):
        return os.path.join(self.data_root, "worker%d" % i)

    def _start_worker(self, i):
        os.makedirs(self.worker_dir(i), exist_ok=True)
        args = self.granite + ["worker", "--port", str(self.worker_ports[i]),
                               "--data", self.worker_dir(i)]
        if self.threads:
            args += ["--threads", str(self.threads)]
        proc = GraniteProcess(args, "worker%d" % i, "worker").start()
        self.worker_ports[i] = proc.port
        self.workers[i] = proc

    def _start_coordinator(self):
        addrs = ",".join("127.0.0.1:%d" % p for p in self.worker_ports)
        # An ephemeral HTTP port: a restart keeps the gRPC port, and ClickHouse's default 8123
        # may be held by another test's coordinator running at the same time.
        args = self.granite + ["coordinator", "--port", str(self.coordinator_port),
                               "--workers", addrs, "--http_port", "0"]
        if self.replicas > 1:
            args += ["--replicas", str(self.replicas)]
        args += self.coordinator_args
        self.coordinator = GraniteProcess(args, "coordinator", "coordinator").start()
        self.coordinator_port = self.port = self.coordinator.port
        self.host = self.coordinator.host

    def start(self):
        try:
            for i in range(len(self.workers)):
                self._start_worker(i)
            self._start_coordinator()
        except BaseException:
            self.stop()
            raise
        return self

    def kill9_worker(self, i):
        self.workers[i].kill9()

    def restart_worker(self, i, attempts=20):
        """Starts worker i again on its old port and data folder (retrying while the port frees)."""
        self.workers[i].stop()
        last = None
        for _ in range(attempts):
            try:
                self._start_worker(i)
                return
            except ClusterError as e:
                last = e
                time.sleep(0.5)
        raise last

    def restart_coordinator(self, attempts=20):
        self.coordinator.stop()
        last = None
        for _ in range(attempts):
            try:
                self._start_coordinator()
                return
            except ClusterError as e:
                last = e
                time.sleep(0.5)
        raise last

    def log_tail(self, n=30):
        procs = [p for p in self.workers + [self.coordinator] if p is not None]
        return "\n".join(p.log_tail(n) for p in procs)

    def stop(self):
        for p in [self.coordinator] + self.workers:
            if p is not None:
                p.stop()
        if self._own_data:
            shutil.rmtree(self.data_root, ignore_errors=True)
