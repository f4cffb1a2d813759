"""harness: real Kafka brokers for the broker suite (tests/broker/run.py).

What it gives the scenarios:
  - classpath(): the pinned Kafka of tests/broker/pom.xml and our driver,
    resolved by Maven into tests/broker/.m2repo (git ignores it) and
    compiled once; every JVM is then a plain `java -cp`.
  - Node: one KRaft node (combined broker + controller unless told
    otherwise) on loopback with free ports and a fresh temporary log dir,
    formatted with the storage tool; start / stop (SIGTERM, then wait) /
    kill (SIGKILL) / restart; each start's broker log in its own file, parsed
    into lines (LogLoader's recovery, truncation and index rebuilds, the
    cleaner's lines, the "Completed load of" line with each log's end).
  - Cluster: three such nodes forming one quorum (the replica tests), or
    one dedicated controller and three brokers (the election tests: with
    the controller apart, a lone broker can still be elected).
  - Driver: our Java workload driver (src/main/java/kfsck/broker/Driver.java)
    as one JVM that takes commands one at a time; it also runs Kafka's tools
    (DumpLogSegments, ConsumerGroupCommand, TransactionsCommand, ...) in
    its own JVM, so a scenario starts few JVMs.
Every process is started here, waited for with a deadline, and ended by its
own pid; temporary dirs are removed by their owner's close().
"""
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import kfsck_e2e  # noqa: E402  (run(), jsonl(): the e2e tests' helpers)

REPO_LOCAL = os.path.join(HERE, ".m2repo")
TARGET = os.path.join(HERE, "target")
CP_FILE = os.path.join(TARGET, "classpath.txt")
JAVA = os.environ.get("JAVA", "java")
# Small JVMs: two cores must carry a broker (or three), the driver and kfsck.
JVM_COMMON = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Djava.awt.headless=true",
              "-XX:-UsePerfData"]
BROKER_JVM = ["-Xms128m", "-Xmx512m"] + JVM_COMMON
TOOL_JVM = ["-Xms64m", "-Xmx384m"] + JVM_COMMON


class Unavailable(Exception):
    """Java, Maven or Maven Central is not there: the suite cannot run."""


def _newest_source():
    newest = os.path.getmtime(os.path.join(HERE, "pom.xml"))
    for d, _, files in os.walk(os.path.join(HERE, "src")):
        for f in files:
            newest = max(newest, os.path.getmtime(os.path.join(d, f)))
    return newest


def _tools():
    for tool in (JAVA, "mvn"):
        if not shutil.which(tool):
            raise Unavailable(f"{tool} not found (make deps installs openjdk-17-jdk-headless and maven)")


def _maven(pom, cp_file, goals, timeout=900):
    """Resolves pom's dependencies into REPO_LOCAL (and runs goals), writing
    the classpath to cp_file; Unavailable when Maven or Maven Central fails."""
    cmd = ["mvn", "-B", "-q", f"-Dmaven.repo.local={REPO_LOCAL}", "-f", pom,
           "dependency:build-classpath", f"-Dmdep.outputFile={cp_file}", *goals]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"Maven did not fetch {kafka_version(pom)} in {timeout} s: is Maven Central reachable?")
    out = p.stdout.decode(errors="replace")
    if p.returncode != 0:
        raise Unavailable(maven_failure(out, kafka_version(pom)))
    os.utime(cp_file)


# What Maven prints when it cannot download from Maven Central: a network
# failure, or a proxy it does not trust (a TLS-intercepting proxy whose CA is
# not in Java's cacerts). Under -q a download that fails is not printed at
# all: the first ERROR is then that a plugin's prefix or descriptor was not
# found, since its metadata could not be fetched.
MAVEN_UNREACHABLE = re.compile(
    r"Could not (transfer|resolve)|UnknownHost|Connection (refused|timed out)|Network is unreachable|"
    r"Could not find artifact|offline mode|Temporary failure in name|No plugin found for prefix|"
    r"Failed to read artifact descriptor|PKIX path|SSLHandshakeException|unable to find valid certification")


def maven_failure(out, version):
    """The one line to say for a failed mvn run whose output is out."""
    if MAVEN_UNREACHABLE.search(out):
        return (f"Maven Central cannot be reached to fetch Kafka ({version}); the broker suite needs it "
                "(a network, proxy or TLS certificate failure: `mvn -X` in tests/broker says which)")
    errors = [l for l in out.splitlines() if "ERROR" in l] or out.strip().splitlines() or [""]
    return "mvn failed: " + errors[0].strip()


def classpath():
    """The classpath of the pinned Kafka and our driver; resolves and
    compiles with Maven when the pom or the driver changed."""
    _tools()
    stamp = os.path.join(TARGET, "classes", "kfsck", "broker", "Driver.class")
    if not (os.path.exists(CP_FILE) and os.path.exists(stamp)
            and os.path.getmtime(CP_FILE) >= _newest_source() and os.path.getmtime(stamp) >= _newest_source()):
        _maven(os.path.join(HERE, "pom.xml"), CP_FILE, ["compile"])
    with open(CP_FILE) as f:
        return os.path.join(TARGET, "classes") + os.pathsep + f.read().strip()


ZK_POM = os.path.join(HERE, "zk", "pom.xml")
ZK_CP_FILE = os.path.join(HERE, "zk", "target", "classpath.txt")


def zk_classpath():
    """The classpath of the ZooKeeper-mode Kafka of tests/broker/zk/pom.xml
    (its broker and the ZooKeeper server), resolved by Maven once."""
    _tools()
    if not (os.path.exists(ZK_CP_FILE) and os.path.getmtime(ZK_CP_FILE) >= os.path.getmtime(ZK_POM)):
        os.makedirs(os.path.dirname(ZK_CP_FILE), exist_ok=True)
        _maven(ZK_POM, ZK_CP_FILE, [])
    with open(ZK_CP_FILE) as f:
        return f.read().strip()


def kafka_version(pom=None):
    with open(pom or os.path.join(HERE, "pom.xml")) as f:
        return re.search(r"<kafka.version>([^<]+)</kafka.version>", f.read()).group(1)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kafka_uuid():
    """A random Uuid as Kafka prints it (22 URL-safe base64 characters)."""
    while True:
        s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not s.startswith("-"):
            return s


LINE = re.compile(r"^(\d\d:\d\d:\d\d\.\d{3}) \[([^\]]*)\] (TRACE|DEBUG|INFO|WARN|ERROR) (\S+) - (.*)$")


def parse_log(path):
    """The broker log at path as a list of dicts: time, thread, level,
    logger, msg (continuation lines such as stack traces joined to their line)."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = LINE.match(line)
            if m:
                out.append(dict(time=m.group(1), thread=m.group(2), level=m.group(3), logger=m.group(4),
                                msg=m.group(5)))
            elif out:
                out[-1]["msg"] += "\n" + line
    return out


def wait_for(pred, timeout, what, step=0.1):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(step)


def end_process(p, sig=signal.SIGTERM, timeout=60):
    """Sends sig to the process p (by its own pid) and waits for it; SIGKILL
    when it outlives timeout. Its exit code."""
    if p.poll() is None:
        try:
            os.kill(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.wait(30)
    return p.returncode


# What every broker of the suite is set to, KRaft or ZooKeeper mode: small
# (two cores carry a broker or four), one partition per topic unless asked,
# internal topics of few partitions and no replicas, no topic created by a
# client's request.
BROKER_PROPS = {
    "num.partitions": 1,
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 2,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 2,
    "group.initial.rebalance.delay.ms": 0,
    "num.io.threads": 2,
    "num.network.threads": 2,
    "num.recovery.threads.per.data.dir": 1,
    "background.threads": 2,
    "log.cleaner.threads": 1,
    "log.cleaner.dedupe.buffer.size": 4 * 1024 * 1024,
    "auto.create.topics.enable": "false",
}


class Node:
    """One KRaft node. roles: "broker,controller" (a combined node, the
    default), "controller" or "broker"; voters: "id@127.0.0.1:port,..."
    (its own quorum when None); cluster_id shared by a cluster's nodes."""

    def __init__(self, cp, workdir, node_id=1, voters=None, cluster_id=None, extra=None, ports=None,
                 roles="broker,controller"):
        self.cp = cp
        self.node_id = node_id
        self.roles = roles
        self.dir = os.path.join(workdir, f"node{node_id}")
        self.data = os.path.join(self.dir, "data")
        os.makedirs(self.dir, exist_ok=True)
        self.port, self.cport = ports or (free_port(), free_port())
        self.voters = voters or f"{node_id}@127.0.0.1:{self.cport}"
        self.cluster_id = cluster_id or kafka_uuid()
        self.extra = dict(extra or {})
        self.proc = None
        self.starts = 0
        self.log = None
        self.write_config()

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def write_config(self):
        listeners = {"broker,controller": f"PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.cport}",
                     "controller": f"CONTROLLER://127.0.0.1:{self.cport}",
                     "broker": f"PLAINTEXT://127.0.0.1:{self.port}"}[self.roles]
        props = {
            "process.roles": self.roles,
            "node.id": self.node_id,
            "controller.quorum.voters": self.voters,
            "listeners": listeners,
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": self.data,
            **BROKER_PROPS,
            "share.coordinator.state.topic.replication.factor": 1,
            "share.coordinator.state.topic.min.isr": 1,
            "share.coordinator.state.topic.num.partitions": 1,
            "log.cleaner.backoff.ms": 1000,
            "transaction.max.timeout.ms": 900000,
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": 900000,
        }
        if self.roles != "controller":
            props["advertised.listeners"] = f"PLAINTEXT://127.0.0.1:{self.port}"
            props["inter.broker.listener.name"] = "PLAINTEXT"
        props.update(self.extra)
        self.config = os.path.join(self.dir, "server.properties")
        with open(self.config, "w") as f:
            for k, v in props.items():
                f.write(f"{k}={v}\n")

    def java(self, main, *args, jvm=TOOL_JVM, log=None):
        cmd = [JAVA, *jvm]
        if log:
            cmd += [f"-Dorg.slf4j.simpleLogger.logFile={log}", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"]
        return cmd + ["-cp", self.cp, main, *args]

    def format(self, timeout=120):
        """kafka-storage format: meta.properties and the bootstrap snapshot."""
        p = subprocess.run(self.java("kafka.tools.StorageTool", "format", "-t", self.cluster_id, "-c", self.config),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError("storage format failed: " + p.stdout.decode(errors="replace")[-2000:])

    def start(self, wait=True, timeout=120):
        assert self.proc is None or self.proc.poll() is not None
        self.starts += 1
        self.log = os.path.join(self.dir, f"broker-{self.starts}.log")
        self.out = open(os.path.join(self.dir, f"stdout-{self.starts}.txt"), "wb")
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(self.java("kafka.Kafka", self.config, jvm=BROKER_JVM, log=self.log),
                                     stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if wait:
            self.wait_started(timeout)
        return self

    def lines(self):
        return parse_log(self.log)

    def wait_started(self, timeout=120):
        def up():
            if self.proc.poll() is not None:
                raise RuntimeError(f"node {self.node_id} exited with {self.proc.returncode} while starting; "
                                   f"last lines: {self.tail()}")
            return any("Kafka Server started" in l["msg"] for l in self.lines())
        wait_for(up, timeout, f"node {self.node_id} to start")
        self.start_seconds = time.monotonic() - self.started_at

    def wait_exit(self, timeout=120):
        """Waits for a node that stops by itself (a failed start)."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.proc.returncode

    def tail(self, n=5):
        return " | ".join(l["msg"].splitlines()[0] for l in self.lines()[-n:])

    def stop(self, timeout=90):
        """A clean shutdown: SIGTERM, then wait (the broker writes
        .kafka_cleanshutdown)."""
        if self.proc is None:
            return None
        rc = end_process(self.proc, signal.SIGTERM, timeout)
        self.out.close()
        return rc

    def kill(self):
        """A crash: SIGKILL, no shutdown hook runs."""
        if self.proc is None:
            return None
        rc = end_process(self.proc, signal.SIGKILL, 30)
        self.out.close()
        return rc

    def running(self):
        return self.proc is not None and self.proc.poll() is None


class ZooKeeper:
    """A standalone ZooKeeper server (of the ZooKeeper-mode Kafka's
    classpath) on a free loopback port, its admin server off."""

    def __init__(self, zk_cp, workdir):
        self.dir = os.path.join(workdir, "zookeeper")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.log = os.path.join(self.dir, "zookeeper.log")
        self.proc = subprocess.Popen(
            [JAVA, *TOOL_JVM, "-Dzookeeper.admin.enableServer=false", f"-Dorg.slf4j.simpleLogger.logFile={self.log}",
             "-cp", zk_cp, "org.apache.zookeeper.server.ZooKeeperServerMain", str(self.port),
             os.path.join(self.dir, "data")], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)

        def up():
            if self.proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                return False
        wait_for(up, 60, "ZooKeeper to listen", step=0.2)

    @property
    def connect(self):
        return f"127.0.0.1:{self.port}"

    def stop(self):
        end_process(self.proc, signal.SIGTERM, 30)

    def running(self):
        return self.proc.poll() is None

    def kill(self):
        end_process(self.proc, signal.SIGKILL, 10)


class ZkBroker(Node):
    """A ZooKeeper-mode broker (Kafka 3.x: no storage format, meta.properties
    v0 with broker.id written at its first start) on the classpath of
    tests/broker/zk/pom.xml."""
    def __init__(self, zk_cp, workdir, zk, node_id=1, extra=None):
        self.zk = zk
        super().__init__(zk_cp, workdir, node_id=node_id, extra=extra, ports=(free_port(), None))

    def write_config(self):
        props = {
            "broker.id": self.node_id,
            "zookeeper.connect": self.zk.connect,
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "log.dirs": self.data,
            **BROKER_PROPS,
        }
        props.update(self.extra)
        self.config = os.path.join(self.dir, "server.properties")
        with open(self.config, "w") as f:
            for k, v in props.items():
                f.write(f"{k}={v}\n")

    def format(self, timeout=120):
        pass  # a ZooKeeper-mode broker formats nothing

    def wait_started(self, timeout=120):
        # KafkaServer's "[KafkaServer id=N] started" through slf4j-simple
        # (its logger name in brackets is not printed): look for the message
        def up():
            if self.proc.poll() is not None:
                raise RuntimeError(f"broker {self.node_id} exited with {self.proc.returncode} while starting; "
                                   f"last lines: {self.tail()}")
            return any(re.search(r"\[KafkaServer id=\d+\] started", l["msg"]) for l in self.lines())
        wait_for(up, timeout, f"broker {self.node_id} to start")
        self.start_seconds = time.monotonic() - self.started_at


class Cluster:
    """Three combined KRaft nodes in one quorum (replica tests)."""

    def __init__(self, cp, workdir, n=3, extra=None):
        cid = kafka_uuid()
        ports = [(free_port(), free_port()) for _ in range(n)]
        voters = ",".join(f"{i + 1}@127.0.0.1:{ports[i][1]}" for i in range(n))
        ex = {"offsets.topic.replication.factor": min(3, n), "transaction.state.log.replication.factor": min(3, n),
              "transaction.state.log.min.isr": 1}
        ex.update(extra or {})
        self.nodes = [Node(cp, workdir, i + 1, voters=voters, cluster_id=cid, extra=ex, ports=ports[i])
                      for i in range(n)]

    @property
    def bootstrap(self):
        return ",".join(n.bootstrap for n in self.nodes if n.running())

    def format(self):
        for n in self.nodes:
            n.format()

    def start(self, timeout=180):
        for n in self.nodes:
            n.start(wait=False)
        for n in self.nodes:
            n.wait_started(timeout)

    def stop_order(self):
        return self.nodes

    def stop(self):
        for n in self.stop_order():
            if n.running():
                n.stop()


class ControllerCluster(Cluster):
    """A dedicated KRaft controller (node 1, nodes[0]) and n brokers (nodes
    2..n+1): with the quorum apart, brokers stop, crash and restart one by
    one while the controller goes on electing leaders, a lone broker
    included. The controller is stopped last."""

    def __init__(self, cp, workdir, n=3, extra=None, controller_extra=None):
        cid = kafka_uuid()
        cport = free_port()
        voters = f"1@127.0.0.1:{cport}"
        ex = {"offsets.topic.replication.factor": min(3, n), "transaction.state.log.replication.factor": min(3, n),
              "transaction.state.log.min.isr": 1}
        ex.update(extra or {})
        ctl = dict(controller_extra or {})
        self.nodes = [Node(cp, workdir, 1, voters=voters, cluster_id=cid, extra=ctl, ports=(None, cport),
                           roles="controller")]
        self.nodes += [Node(cp, workdir, i + 2, voters=voters, cluster_id=cid, extra=ex, ports=(free_port(), None),
                            roles="broker") for i in range(n)]

    @property
    def controller(self):
        return self.nodes[0]

    @property
    def brokers(self):
        return self.nodes[1:]

    @property
    def bootstrap(self):
        return ",".join(n.bootstrap for n in self.brokers if n.running())

    def stop_order(self):
        return self.brokers + [self.controller]


class DriverError(Exception):
    pass


class Driver:
    """Our Java workload driver (Driver.java), one JVM taking commands."""

    def __init__(self, cp, logdir, bootstrap=None):
        self.log = os.path.join(logdir, f"driver-{int(time.time() * 1000)}.log")
        self.proc = subprocess.Popen(
            [JAVA, *TOOL_JVM, f"-Dorg.slf4j.simpleLogger.logFile={self.log}",
             "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "kfsck.broker.Driver"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._answers = []
        self._cv = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.servers = None
        if bootstrap:
            self.cmd("bootstrap", servers=bootstrap)

    def _read(self):
        for line in self.proc.stdout:
            with self._cv:
                self._answers.append(line.decode("utf-8", "replace").rstrip("\n"))
                self._cv.notify_all()
        with self._cv:
            self._answers.append(None)
            self._cv.notify_all()

    def send(self, words, timeout=180):
        """Sends one command (a list of words); its answer after "ok "."""
        self.proc.stdin.write(("\t".join(str(w) for w in words) + "\n").encode())
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        with self._cv:
            while not self._answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"driver: no answer to {words[0]} in {timeout}s")
                self._cv.wait(left)
            a = self._answers.pop(0)
        if a is None:
            raise DriverError(f"driver exited ({self.proc.poll()}) on {words}")
        if a.startswith("ok "):
            return a[3:]
        # anything else the JVM printed on stdout (it should print nothing) or an error
        raise DriverError(f"{words[0]}: {a}")

    def cmd(self, _command, timeout=180, **kw):
        if _command == "bootstrap":
            self.servers = kw["servers"]
        return self.send([_command] + [f"{k}={v}" for k, v in kw.items()], timeout)

    def tool(self, out, cls, *args, timeout=180):
        """Runs Kafka tool cls in the driver's JVM; (exit code, stdout text, stderr text)."""
        code = int(self.send(["tool", out, cls, *args], timeout))
        with open(out, encoding="utf-8", errors="replace", newline="") as f:
            text = f.read()
        with open(out + ".err", encoding="utf-8", errors="replace", newline="") as f:
            err = f.read()
        return code, text, err

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.wait(20)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                end_process(self.proc, signal.SIGKILL, 10)
        self.proc.stdout.close()
        self.proc.stdin.close()
        self._reader.join(5)

    def kill(self):
        end_process(self.proc, signal.SIGKILL, 10)
        self.close()


def kfsck(*args, timeout=300):
    """Runs the kfsck under test; (exit code, stdout, stderr)."""
    return kfsck_e2e.run(*args, cwd=None, timeout=timeout)


def kfsck_json(*args, timeout=300):
    rc, out, err = kfsck(*args, "--json", timeout=timeout)
    return rc, kfsck_e2e.jsonl(out), err


def copy_tree(src, dst):
    shutil.copytree(src, dst, symlinks=True)
    return dst


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


class Workdir:
    """A temporary directory removed on close (KFSCK_BROKER_KEEP=1 keeps it)."""

    def __init__(self, prefix="kfsck-broker-"):
        self.path = tempfile.mkdtemp(prefix=prefix)

    def close(self):
        if os.environ.get("KFSCK_BROKER_KEEP") == "1":
            print(f"  (kept {self.path})")
            return
        shutil.rmtree(self.path, ignore_errors=True)
