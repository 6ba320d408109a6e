#!/usr/bin/python3
"""Checks deploy/ without a container engine.

Usage: deploy_test.py CHECK --repo DIR [--neardupd BIN] [--neardup BIN]

CHECK is one of:
  yamllint     every YAML file under deploy/ passes yamllint --strict with
               deploy/.yamllint
  promtool     promtool check config / check rules
  compose      docker-compose config accepts docker-compose.yml alone and
               with docker-compose.tls.yml, and docker-compose.cluster.yml
  static       Dockerfile (stages, non-root, volume, health check, and that
               its runtime packages provide exactly the shared libraries the
               built binaries load), Kubernetes manifests (kustomization
               resources, config keys are neardupd flags, mounts match the
               config's paths, probes, security), compose mounts, dashboard
               structure
  metrics      every metric the dashboard and the alerts use is one a real
               neardupd exports
  prometheus   a real Prometheus on loopback scrapes a real neardupd, loads
               the alerting rules and evaluates every dashboard query

Exit status: 0 passed, 1 failed, 77 skipped (a required tool is absent).
Only the standard library; no YAML parser (the few YAML facts checked are
read line by line from files whose layout this repository controls).
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77


class Skip(Exception):
    pass


def need_tool(name):
    path = shutil.which(name)
    if path is None:
        raise Skip(f"{name} not found (scripts/install-deps.sh installs it)")
    return path


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- PromQL --

PROMQL_KEYWORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
    "group_right", "bool", "offset", "inf", "nan", "start", "end",
}


def promql_metric_names(expr):
    """Metric names a PromQL expression selects (not functions, labels,
    keywords, numbers or durations)."""
    e = re.sub(r"\$\{[^}]*\}|\$\w+", "", expr)  # Grafana variables
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', e)
    e = re.sub(r"\{[^}]*\}", " ", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)  # range and subquery selectors
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*"
               r"\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)", e):
        name = m.group(1)
        if re.match(r"\s*\(", e[m.end():]):
            continue  # a function or an aggregation
        if name.lower() in PROMQL_KEYWORDS:
            continue
        names.add(name)
    return names


def grafana_query_names(query):
    """Metric names of a Grafana Prometheus variable query."""
    m = re.fullmatch(r"\s*label_values\((.*),\s*\w+\s*\)\s*", query)
    if m:
        return promql_metric_names(m.group(1))
    m = re.fullmatch(r"\s*(?:query_result|metrics)\((.*)\)\s*", query)
    return promql_metric_names(m.group(1) if m else query)


def dashboard(repo):
    return json.loads(read(os.path.join(repo, "deploy/grafana/neardup.json")))


def dashboard_panels(dash):
    for panel in dash["panels"]:
        yield panel
        yield from panel.get("panels", [])  # collapsed rows


def dashboard_exprs(dash):
    """(where, expr) of every panel target."""
    for panel in dashboard_panels(dash):
        for target in panel.get("targets", []):
            if "expr" in target:
                yield f"panel '{panel['title']}' {target['refId']}", \
                    target["expr"]


def dashboard_variable_queries(dash):
    for var in dash["templating"]["list"]:
        if var["type"] != "query":
            continue
        query = var["query"]
        if isinstance(query, dict):
            query = query["query"]
        yield f"variable ${var['name']}", query


def block_scalars(text, key):
    """The values of every `key:` in a YAML text, inline or as a block
    scalar (| or >), with the block's indentation removed."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)(?:- )?" + re.escape(key) + r":\s*(.*)$", line)
        if not m:
            continue
        indent, value = len(m.group(1)), m.group(2).strip()
        if value and value[0] in "|>":
            block = []
            for follow in lines[i + 1:]:
                if follow.strip() and \
                        len(follow) - len(follow.lstrip()) <= indent:
                    break
                block.append(follow)
            while block and not block[-1].strip():
                block.pop()
            width = min(len(b) - len(b.lstrip()) for b in block if b.strip())
            out.append("\n".join(b[width:] for b in block))
        else:
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out.append(value)
    return out


def alert_exprs(repo):
    text = read(os.path.join(repo, "deploy/prometheus/alerts.yml"))
    exprs = block_scalars(text, "expr")
    alerts = re.findall(r"^\s*- alert:\s*(\S+)", text, re.M)
    assert len(exprs) == len(alerts) and alerts, \
        f"read {len(exprs)} exprs for {len(alerts)} alerts in alerts.yml"
    return list(zip(alerts, exprs))


# ------------------------------------------------------------- neardupd --

class Neardupd:
    """The real server on loopback, plaintext, with its own data dir."""

    def __init__(self, binary, cli, workdir):
        self.binary, self.cli, self.workdir = binary, cli, workdir
        self.address = f"127.0.0.1:{free_port()}"
        self.metrics_address = f"127.0.0.1:{free_port()}"
        self.process = None
        self.log_path = os.path.join(workdir, "neardupd.log")

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [self.binary, "--plaintext", f"--listen={self.address}",
             f"--metrics-listen={self.metrics_address}",
             f"--data-dir={os.path.join(self.workdir, 'data')}",
             "--workers=2", "--log-level=info"],
            stdout=log, stderr=log)
        log.close()
        # Not listening (or still rebuilding indexes) until SERVING.
        deadline = time.monotonic() + 30
        while True:
            result = self.run_cli("health", "--timeout=2", check=False)
            if result.returncode == 0:
                return
            if self.process.poll() is not None or \
                    time.monotonic() > deadline:
                self.stop()
                raise AssertionError(
                    f"neardupd did not become SERVING: {result.stdout}"
                    f"{result.stderr}\n--- log:\n{read(self.log_path)}")
            time.sleep(0.1)

    def run_cli(self, *args, check=True):
        result = subprocess.run(
            [self.cli, *args, f"--server={self.address}"],
            capture_output=True, text=True, timeout=60)
        if check and result.returncode != 0:
            raise AssertionError(
                f"neardup {' '.join(args)} failed ({result.returncode}): "
                f"{result.stdout}{result.stderr}")
        return result

    def stop(self):
        """SIGTERM (graceful drain); returns the exit code."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return "killed after 30 s"

    def scrape(self):
        url = f"http://{self.metrics_address}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode()


def populated_server(args, workdir):
    """A neardupd with one collection and a few documents, restarted once
    so that the start-up rebuild gauges exist."""
    server = Neardupd(args.neardupd, args.neardup, workdir)
    server.start()
    try:
        server.run_cli("collections", "create", "news")
        docs = os.path.join(workdir, "docs.jsonl")
        with open(docs, "w") as f:
            for i in range(5):
                words = " ".join(f"word{(i * 7 + j) % 40}" for j in range(60))
                f.write(json.dumps({"id": f"d{i}", "text": words}) + "\n")
        server.run_cli("ingest", "--collection=news", "--id-field=id",
                       "--no-progress", docs)
        server.run_cli("query", "--collection=news", "--text=" +
                       " ".join(f"word{j % 40}" for j in range(60)))
    finally:
        code = server.stop()
    assert code == 0, f"neardupd exited with {code} on SIGTERM\n" \
        f"{read(server.log_path)}"
    server.start()
    return server


def exported_metric_names(exposition):
    """Sample names (histograms as _bucket/_sum/_count, as PromQL sees
    them) and family names of a Prometheus text exposition."""
    names = set()
    for line in exposition.splitlines():
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


# ----------------------------------------------------------------- checks --

def check_yamllint(args):
    yamllint = need_tool("yamllint")
    deploy = os.path.join(args.repo, "deploy")
    files = sorted(glob.glob(f"{deploy}/**/*.y*ml", recursive=True))
    assert len(files) >= 10, f"only {len(files)} YAML files under deploy/"
    result = subprocess.run(
        [yamllint, "--strict", "-f", "parsable", "-c",
         os.path.join(deploy, ".yamllint"), deploy],
        capture_output=True, text=True)
    assert result.returncode == 0, f"yamllint:\n{result.stdout}" \
        f"{result.stderr}"
    print(f"ok: yamllint --strict, {len(files)} files")


def check_promtool(args):
    promtool = need_tool("promtool")
    prom = os.path.join(args.repo, "deploy/prometheus")
    for command in (["check", "config", "prometheus.yml"],
                    ["check", "config", "prometheus.cluster.yml"],
                    ["check", "rules", "alerts.yml"]):
        result = subprocess.run([promtool, *command], cwd=prom,
                                capture_output=True, text=True)
        assert result.returncode == 0, \
            f"promtool {' '.join(command)}:\n{result.stdout}{result.stderr}"
        print(f"ok: promtool {' '.join(command)}")


def check_compose(args):
    compose = need_tool("docker-compose")
    deploy = os.path.join(args.repo, "deploy")
    for files in (["docker-compose.yml"],
                  ["docker-compose.yml", "docker-compose.tls.yml"],
                  ["docker-compose.cluster.yml"]):
        command = [compose]
        for f in files:
            command += ["-f", f]
        result = subprocess.run(command + ["config", "-q"], cwd=deploy,
                                capture_output=True, text=True)
        assert result.returncode == 0, \
            f"docker-compose config {files}:\n{result.stdout}{result.stderr}"
        print(f"ok: docker-compose config {' + '.join(files)}")


def long_flags(binary, *subcommand):
    out = subprocess.run([binary, *subcommand, "--help"], capture_output=True,
                         text=True, check=True).stdout
    return set(re.findall(r"--([a-z][a-z0-9-]*)", out))


def dpkg_owners(paths):
    """{library path: Debian package} (usrmerge: tries /lib and /usr/lib)."""
    variants = {}
    for path in paths:
        for p in {path, os.path.realpath(path)}:
            variants[p] = path
            if p.startswith("/lib"):
                variants["/usr" + p] = path
            elif p.startswith("/usr/lib"):
                variants[p[len("/usr"):]] = path
    result = subprocess.run(["dpkg", "-S", *sorted(variants)],
                            capture_output=True, text=True)
    owners = {}
    for line in result.stdout.splitlines():
        packages, _, path = line.partition(": ")
        if path in variants:
            owners[variants[path]] = packages.split(",")[0].split(":")[0]
    return owners


def installed_depends():
    """{installed package: the names in its Depends and Pre-Depends}."""
    out = subprocess.run(
        ["dpkg-query", "-W",
         "-f=${db:Status-Abbrev}\t${Package}\t${Depends}, ${Pre-Depends}\n"],
        capture_output=True, text=True, check=True).stdout
    depends = {}
    for line in out.splitlines():
        status, package, deps = line.split("\t")
        if not status.startswith("ii"):
            continue
        names = set()
        for alternative in re.split(r"[,|]", deps):
            name = alternative.strip().split(" ")[0].split(":")[0]
            if name:
                names.add(name)
        depends[package] = names
    return depends


def check_dockerfile(args):
    dockerfile = read(os.path.join(args.repo, "deploy/Dockerfile"))
    stages = re.split(r"^FROM ", dockerfile, flags=re.M)[1:]
    assert len(stages) == 2, f"expected 2 stages, got {len(stages)}"
    build, runtime = stages
    assert build.startswith("debian:12-slim AS build"), build.splitlines()[0]
    assert runtime.startswith("debian:12-slim"), runtime.splitlines()[0]
    for needle in ("scripts/install-deps.sh", "scripts/build.sh Release",
                   "-DNEARDUP_BUILD_TESTS=OFF", "-DNEARDUP_BUILD_BENCH=OFF"):
        assert needle in build, f"build stage lacks {needle}"
    for pattern in (r"^USER (?!root|0\b)\S+", r"^VOLUME \[\"/var/lib/neardup\"\]",
                    r"^EXPOSE 50051 9464$", r"^STOPSIGNAL SIGTERM$",
                    r"^HEALTHCHECK .*\n?.*CMD \[\"neardup\", \"health\"",
                    r"^ENTRYPOINT \[\"neardupd\"\]",
                    r"NEARDUPD_LISTEN=0\.0\.0\.0:50051",
                    r"NEARDUPD_METRICS_LISTEN=0\.0\.0\.0:9464",
                    r"NEARDUPD_DATA_DIR=/var/lib/neardup"):
        assert re.search(pattern, runtime, re.M), \
            f"runtime stage lacks /{pattern}/"
    health = re.search(r'CMD \["neardup", "health"(.*)\]', runtime).group(1)
    cli_flags = long_flags(args.neardup, "health")
    for flag in re.findall(r'"--([a-z-]+)', health):
        assert flag in cli_flags, f"HEALTHCHECK uses unknown --{flag}"

    # The runtime packages provide exactly the libraries the binaries load.
    install = re.search(r"apt-get install -y --no-install-recommends"
                        r"((?:[^&]|\\\n)*?)&&", runtime).group(1)
    packages = set(re.findall(r"[a-z0-9][a-z0-9+.-]+", install))
    depends = installed_depends()
    absent = sorted(p for p in packages if p not in depends)
    assert not absent, f"runtime packages not installed here: {absent} " \
        "(scripts/install-deps.sh installs their -dev packages)"
    closure, todo = set(), list(packages)
    while todo:
        package = todo.pop()
        if package not in closure:
            closure.add(package)
            todo += sorted(depends.get(package, ()))
    base_image = {"libc6", "libgcc-s1", "libstdc++6"}  # in debian:12-slim
    ldd = subprocess.run(["ldd", args.neardupd, args.neardup],
                         capture_output=True, text=True, check=True).stdout
    assert "not found" not in ldd, ldd
    libs = sorted(set(re.findall(r"=> (/\S+)", ldd)))
    owner_of = dpkg_owners(libs)
    owners = {}
    for lib in libs:
        assert lib in owner_of, f"no Debian package owns {lib}"
        owners.setdefault(owner_of[lib], []).append(os.path.basename(lib))
    missing = {o: l for o, l in owners.items()
               if o not in closure and o not in base_image}
    assert not missing, "deploy/Dockerfile's runtime stage lacks the " \
        f"packages of these libraries: {missing}"
    unused = sorted(p for p in packages if p not in owners)
    assert not unused, f"runtime packages that provide no library the " \
        f"binaries load: {unused}"
    print(f"ok: Dockerfile; {len(libs)} shared libraries from "
          f"{len(owners)} packages, all in the runtime stage")

    ignore = read(os.path.join(args.repo, ".dockerignore")).split()
    for needed in (".git", "build*/"):
        assert needed in ignore, f".dockerignore lacks {needed}"


def yaml_documents(text):
    return [d for d in re.split(r"^---\s*$", text, flags=re.M) if d.strip()]


def check_kubernetes_cluster(k8s, kustomization):
    """deploy/k8s/cluster: neardupd's --cluster-nats names every NATS pod of
    nats.yaml through its headless Service, NATS routes to every one of
    them, and there are at least 2 neardupd replicas and 3 NATS servers."""
    nats = read(f"{k8s}/cluster/nats.yaml")
    replicas = int(re.search(r"^  name: nats\n(?:.*\n)*?  replicas: (\d+)",
                             nats, re.M)[1])
    service = re.search(r"serviceName: (\S+)", nats)[1]
    assert replicas >= 3, f"{replicas} NATS servers: a quorum needs 3"
    pods = {f"nats-{i}.{service}" for i in range(replicas)}
    config = block_scalars(kustomization, "neardupd.yaml")[0]
    urls = re.search(r"^cluster-nats: (\S+)", config, re.M)[1].split(",")
    assert {u.split("//")[1].rsplit(":", 1)[0] for u in urls} == pods, \
        f"cluster-nats {urls} is not every NATS pod {sorted(pods)}"
    assert all(u.endswith(":4222") for u in urls), urls
    routes = set(re.findall(r"nats://(\S+):6222", nats))
    assert routes == pods, f"NATS routes {routes} are not {sorted(pods)}"
    assert "podManagementPolicy: Parallel" in nats, \
        "NATS pods must start together (a first start elects no leader " \
        "before every route is up)"
    neardupd = int(re.search(r"replicas: (\d+)", kustomization)[1])
    assert neardupd >= 4, f"{neardupd} neardupd pods: 2 shards x 2 replicas"
    # A pod's shard index is its ordinal (from its node id, the pod name).
    assert re.search(r"cluster-shard-index: -1\b", kustomization), \
        "the cluster's pods must take their shard index from their ordinal"
    print(f"ok: Kubernetes cluster ({replicas} NATS servers, {neardupd} "
          "neardupd replicas)")


def check_kubernetes(args):
    k8s = os.path.join(args.repo, "deploy/k8s")
    kustomizations = sorted(glob.glob(f"{k8s}/**/kustomization.yaml",
                                      recursive=True))
    assert len(kustomizations) >= 2, kustomizations
    for path in kustomizations:
        text = read(path)
        block = re.search(r"^resources:\n((?:\s+-.*\n|\s*#.*\n)+)", text,
                          re.M)
        assert block, f"{path}: no resources"
        resources = re.findall(r"^\s+- (\S+)", block.group(1), re.M)
        here = os.path.dirname(path)
        for r in resources:
            assert os.path.exists(os.path.join(here, r)), \
                f"{path}: resource {r} does not exist"
        if os.path.basename(here) == "base":
            manifests = {os.path.basename(p)
                         for p in glob.glob(f"{here}/*.yaml")}
            manifests.discard("kustomization.yaml")
            assert manifests == set(resources), \
                f"{path} lists {sorted(resources)}, dir has " \
                f"{sorted(manifests)}"
    kinds = []
    for path in glob.glob(f"{k8s}/base/*.yaml"):
        for doc in yaml_documents(read(path)):
            kind = re.search(r"^kind: (\S+)", doc, re.M)
            if kind and "kustomize.config" not in doc:
                kinds.append(kind.group(1))
                name = re.search(r"^metadata:\n(?:\s+.*\n)*?\s+name: (\S+)",
                                 doc, re.M)
                assert name, f"{path}: {kind.group(1)} without a name"
    for kind in ("StatefulSet", "Service", "ConfigMap", "Secret",
                 "ServiceMonitor", "PodDisruptionBudget"):
        assert kind in kinds, f"no {kind} in deploy/k8s/base"

    # neardupd's config: keys are flags, paths are mounted.
    server_flags = long_flags(args.neardupd)
    sts = read(f"{k8s}/base/statefulset.yaml")
    mounts = dict((m[1], m[0]) for m in re.findall(
        r"- name: (\S+)\n\s+mountPath: (\S+)", sts))
    configs = block_scalars(read(f"{k8s}/base/configmap.yaml"),
                            "neardupd.yaml")
    configs += block_scalars(read(f"{k8s}/plaintext-mesh/kustomization.yaml"),
                             "neardupd.yaml")
    cluster = read(f"{k8s}/cluster/kustomization.yaml")
    configs += block_scalars(cluster, "neardupd.yaml")
    assert len(configs) == 3, f"found {len(configs)} neardupd.yaml configs"
    for config in configs:
        entries = dict(re.findall(r"^([a-z][a-z0-9-]*):\s*(.*?)\s*$", config,
                                  re.M))
        unknown = sorted(set(entries) - server_flags)
        assert not unknown, f"config keys that are not neardupd flags: " \
            f"{unknown}"
        assert entries["data-dir"] in mounts, \
            f"data-dir {entries['data-dir']} is not a mounted volume"
        if "backup-dir" in entries:
            assert entries["backup-dir"] in mounts, \
                f"backup-dir {entries['backup-dir']} is not a mounted volume"
        for key in ("tls-cert", "tls-key", "tls-client-ca", "auth-tokens"):
            if key in entries:
                directory = os.path.dirname(entries[key])
                assert directory in mounts, \
                    f"{key} {entries[key]} is not in a mounted volume"
        assert ("tls-cert" in entries) != (entries.get("plaintext") ==
                                           "true"), \
            "a config needs TLS or plaintext: true, not both"
        grpc_port = entries["listen"].rsplit(":", 1)[1]
        metrics_port = entries["metrics-listen"].rsplit(":", 1)[1]
        assert f"containerPort: {grpc_port}" in sts
        assert f"containerPort: {metrics_port}" in sts
    config_arg = re.search(r"--config=(\S+?)\"", sts).group(1)
    assert os.path.dirname(config_arg) in mounts and \
        os.path.basename(config_arg) == "neardupd.yaml", config_arg

    # Probes, draining, security, resources.
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert f"{probe}:" in sts, f"no {probe}"
    cli_flags = long_flags(args.neardup, "health")
    for flag in re.findall(r"- --([a-z-]+)=", sts.split("startupProbe")[1]):
        assert flag in cli_flags, f"probe uses unknown neardup health --{flag}"
    grace = int(re.search(r"terminationGracePeriodSeconds: (\d+)", sts)[1])
    assert grace >= 25, "terminationGracePeriodSeconds must exceed the 20 s " \
        "drain"
    for needle in ("runAsNonRoot: true", "readOnlyRootFilesystem: true",
                   "allowPrivilegeEscalation: false", "volumeClaimTemplates:",
                   "requests:", "limits:", "serviceName: neardupd-headless"):
        assert needle in sts, f"statefulset.yaml lacks {needle}"
    mesh = read(f"{k8s}/plaintext-mesh/kustomization.yaml")
    assert mesh.count("grpc:\n            port: 50051") == 3, \
        "plaintext-mesh: native grpc probes on 50051"
    check_kubernetes_cluster(k8s, cluster)
    print(f"ok: Kubernetes manifests ({len(kinds)} objects, "
          f"{len(kustomizations)} kustomizations, {len(configs)} configs)")

    # Optional: Debian 12's kubectl (1.20) embeds a Kustomize too old for
    # inline patches, so only a newer kubectl renders the trees here.
    kubectl = shutil.which("kubectl")
    version = subprocess.run([kubectl, "version", "--client"],
                             capture_output=True, text=True).stdout \
        if kubectl else ""
    kustomize = re.search(r"Kustomize Version: v(\d+)", version)
    if kustomize and int(kustomize.group(1)) >= 4:
        for target in (k8s, f"{k8s}/plaintext-mesh", f"{k8s}/cluster"):
            result = subprocess.run([kubectl, "kustomize", target],
                                    capture_output=True, text=True)
            assert result.returncode == 0, \
                f"kubectl kustomize {target}:\n{result.stderr}"
        print("ok: kubectl kustomize")


def check_cluster_compose(deploy, server_flags):
    """docker-compose.cluster.yml: its mounts exist, its nodes pass known
    flags, each a node id of its own and every NATS server of the file, and
    Prometheus scrapes every node."""
    text = read(os.path.join(deploy, "docker-compose.cluster.yml"))
    for source in re.findall(r"^\s+- \./([^:]+):", text, re.M):
        assert os.path.exists(os.path.join(deploy, source)), \
            f"docker-compose.cluster.yml mounts missing ./{source}"
    nats = re.findall(r"^  (nats-\d+):\n", text, re.M)
    nodes = re.findall(r"^  (neardupd-\w+):\n", text, re.M)
    assert len(nats) >= 3 and len(nodes) >= 2, (nats, nodes)
    ids = set()
    for node in nodes:
        block = re.search(rf"^  {node}:\n((?:    .*\n)*)", text, re.M).group(1)
        flags = dict(re.findall(r"--([a-z][a-z0-9-]*)=?([^\",\]]*)", block))
        for flag in flags:
            assert flag in server_flags, \
                f"docker-compose.cluster.yml: {node} passes unknown --{flag}"
        ids.add(flags.get("node-id"))
        urls = re.search(r"--cluster-nats=([^\"]+)", block).group(1)
        assert sorted(u.split("//")[1].split(":")[0]
                      for u in urls.split(",")) == sorted(nats), \
            f"{node}'s --cluster-nats is not every NATS server: {urls}"
    assert None not in ids and len(ids) == len(nodes), \
        f"nodes need node ids of their own: {ids}"
    # Shard indexes 0..n-1: every shard of a 2-shard collection has 2
    # replicas.
    indexes = sorted(int(re.search(r"--cluster-shard-index=(\d+)", re.search(
        rf"^  {node}:\n((?:    .*\n)*)", text, re.M).group(1)).group(1))
        for node in nodes)
    assert indexes == list(range(len(nodes))) and len(nodes) >= 4, \
        f"docker-compose.cluster.yml: shard indexes {indexes}"
    prom = read(os.path.join(deploy, "prometheus/prometheus.cluster.yml"))
    for node in nodes:
        assert f"{node}:9464" in prom, f"Prometheus does not scrape {node}"
    assert "prometheus.cluster.yml" in text


def check_compose_files(args):
    deploy = os.path.join(args.repo, "deploy")
    server_flags = long_flags(args.neardupd)
    for name in ("docker-compose.yml", "docker-compose.tls.yml"):
        text = read(os.path.join(deploy, name))
        for source in re.findall(r"^\s+- \./([^:]+):", text, re.M):
            if name.endswith("tls.yml"):
                continue  # tls/ and auth/ are the operator's own files
            assert os.path.exists(os.path.join(deploy, source)), \
                f"{name} mounts missing ./{source}"
        service = re.search(r"^  neardupd:\n((?:    .*\n|\s*\n)*)", text,
                            re.M).group(1)
        command = re.search(r"^    command:(.*\n(?:      .*\n)*)", service,
                            re.M).group(1)
        flags = re.findall(r"--([a-z][a-z0-9-]*)", command)
        assert flags, f"{name}: no neardupd command"
        for flag in flags:
            assert flag in server_flags, \
                f"{name} passes unknown neardupd --{flag}"
    prom = read(os.path.join(deploy, "prometheus/prometheus.yml"))
    assert re.search(r"job_name: neardupd\n(?:.*\n)*?.*neardupd:9464", prom)
    check_cluster_compose(deploy, server_flags)
    datasource = read(os.path.join(
        deploy, "grafana/provisioning/datasources/prometheus.yml"))
    uid = re.search(r"uid: (\S+)", datasource).group(1)
    provider = read(os.path.join(
        deploy, "grafana/provisioning/dashboards/neardup.yml"))
    path = re.search(r"path: (\S+)", provider).group(1)
    compose = read(os.path.join(deploy, "docker-compose.yml"))
    assert f"./grafana/neardup.json:{path}/neardup.json" in compose, \
        "the dashboard is not mounted where the provider looks"
    dash = dashboard(args.repo)
    ds_var = [v for v in dash["templating"]["list"]
              if v["type"] == "datasource"]
    assert ds_var and ds_var[0]["current"]["value"] == uid, \
        "dashboard's default data source is not the provisioned one"
    print("ok: compose mounts, flags, Prometheus job, Grafana provisioning")


def check_dashboard_structure(args):
    dash = dashboard(args.repo)
    assert dash.get("uid") and dash.get("title"), "dashboard uid and title"
    ids, cells = set(), {}
    for panel in dashboard_panels(dash):
        assert panel["id"] not in ids, f"duplicate panel id {panel['id']}"
        ids.add(panel["id"])
        g = panel["gridPos"]
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                assert (x, y) not in cells, \
                    f"panels '{cells.get((x, y))}' and '{panel['title']}' " \
                    "overlap"
                cells[(x, y)] = panel["title"]
        assert g["x"] + g["w"] <= 24, f"'{panel['title']}' wider than 24"
        if panel["type"] == "row":
            continue
        assert panel.get("targets"), f"'{panel['title']}' has no query"
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}", \
                f"'{panel['title']}' does not use the $datasource variable"
    for where, expr in dashboard_exprs(dash):
        assert promql_metric_names(expr), f"{where}: no metric in {expr}"
    print(f"ok: dashboard structure ({len(ids)} panels)")


def check_static(args):
    check_dockerfile(args)
    check_kubernetes(args)
    check_compose_files(args)
    check_dashboard_structure(args)


def used_metric_names(args):
    used = {}
    dash = dashboard(args.repo)
    sources = list(dashboard_exprs(dash)) + \
        [(w, q) for w, q in dashboard_variable_queries(dash)]
    sources += [(f"alert {a}", e) for a, e in alert_exprs(args.repo)]
    for where, expr in sources:
        names = (grafana_query_names(expr) if where.startswith("variable")
                 else promql_metric_names(expr))
        assert names, f"{where}: no metric name found in {expr!r}"
        for name in names:
            used.setdefault(name, []).append(where)
    return used


def check_metrics(args):
    # The extractor itself, on the shapes used here.
    assert promql_metric_names(
        'histogram_quantile(0.99, sum by (method, le) (rate('
        'neardup_rpc_duration_seconds_bucket{method!~"A|B", '
        'instance=~"$instance"}[$__rate_interval]))) > 0.5') == \
        {"neardup_rpc_duration_seconds_bucket"}
    assert promql_metric_names(
        "predict_linear(a_bytes[6h], 24 * 3600) < 0 and b / c < 1e-3 "
        "offset 5m") == {"a_bytes", "b", "c"}
    assert grafana_query_names(
        'label_values(up{job="neardupd"}, instance)') == {"up"}

    used = used_metric_names(args)
    with tempfile.TemporaryDirectory(prefix="neardup-deploy-") as workdir:
        server = populated_server(args, workdir)
        try:
            exposition = server.scrape()
        finally:
            code = server.stop()
        assert code == 0, f"neardupd exited with {code}"
    exported = exported_metric_names(exposition)
    ignored = {"up"}  # made by Prometheus, not by the target
    unknown = {n: w for n, w in used.items()
               if n not in exported and n not in ignored}
    assert not unknown, "metrics used but not exported by neardupd:\n" + \
        "\n".join(f"  {n}: {', '.join(sorted(set(w)))}"
                  for n, w in sorted(unknown.items()))
    families = {line.split()[2] for line in exposition.splitlines()
                if line.startswith("# TYPE neardup_")}
    unused = sorted(f for f in families
                    if not any(n == f or n.startswith(f + "_") for n in used))
    print(f"ok: {len(used)} metric names used by the dashboard and the "
          f"alerts, all exported ({len(exported)} exported names)")
    if unused:
        print(f"note: exported but unused: {', '.join(unused)}")


def http_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read().decode())


def wait_for(what, probe, timeout):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            ok, last = probe()
            if ok:
                return last
        except (urllib.error.URLError, ConnectionError, OSError) as e:
            last = e
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}; "
                         f"last: {last}")


def check_prometheus(args):
    prometheus = need_tool("prometheus")
    alerts = os.path.abspath(os.path.join(args.repo,
                                          "deploy/prometheus/alerts.yml"))
    n_alerts = len(alert_exprs(args.repo))
    with tempfile.TemporaryDirectory(prefix="neardup-prom-") as workdir:
        server = populated_server(args, workdir)
        try:
            run_prometheus(args, prometheus, alerts, n_alerts, server,
                           workdir)
        finally:
            code = server.stop()
        assert code == 0, f"neardupd exited with {code}"


def run_prometheus(args, prometheus, alerts, n_alerts, server, workdir):
    web = f"127.0.0.1:{free_port()}"
    config = os.path.join(workdir, "prometheus.yml")
    with open(config, "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - {alerts}
scrape_configs:
  - job_name: neardupd
    static_configs:
      - targets: ["{server.metrics_address}"]
""")
    log_path = os.path.join(workdir, "prometheus.log")
    with open(log_path, "w") as log:
        prom = subprocess.Popen(
            [prometheus, f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(workdir, 'tsdb')}",
             f"--web.listen-address={web}", "--log.level=warn"],
            stdout=log, stderr=log)
    api = f"http://{web}/api/v1"
    try:
        def target_up():
            targets = http_json(f"{api}/targets")["data"]["activeTargets"]
            return (len(targets) == 1 and targets[0]["health"] == "up",
                    targets)
        targets = wait_for("the neardupd target to be up", target_up, 30)
        print(f"ok: Prometheus scrapes {targets[0]['scrapeUrl']}: "
              f"{targets[0]['health']}")

        def rules_ok():
            groups = http_json(f"{api}/rules")["data"]["groups"]
            rules = [r for g in groups for r in g["rules"]]
            return (len(rules) == n_alerts and
                    all(r["health"] == "ok" for r in rules),
                    [(r["name"], r["health"], r.get("lastError"))
                     for r in rules])
        wait_for(f"{n_alerts} alerting rules to evaluate", rules_ok, 15)
        print(f"ok: {n_alerts} alerting rules loaded and evaluated")

        def has_samples():
            result = http_json(f"{api}/query?" + urllib.parse.urlencode(
                {"query": 'count_over_time(up{job="neardupd"}[1m]) >= 3'}))
            return bool(result["data"]["result"]), result
        wait_for("three scrapes", has_samples, 15)
        queries = list(dashboard_exprs(dashboard(args.repo)))
        for where, expr in queries:
            query = (expr.replace("$__rate_interval", "1m")
                     .replace("$instance", ".*")
                     .replace("$collection", ".*"))
            assert "$" not in query, f"{where}: unknown variable: {expr}"
            url = f"{api}/query?" + urllib.parse.urlencode({"query": query})
            try:
                result = http_json(url)
            except urllib.error.HTTPError as e:
                raise AssertionError(
                    f"{where}: Prometheus rejects {query!r}: "
                    f"{e.read().decode()}")
            assert result["status"] == "success", f"{where}: {result}"
        print(f"ok: Prometheus evaluates all {len(queries)} dashboard "
              "queries")
    except AssertionError:
        print(f"--- prometheus log:\n{read(log_path)}", file=sys.stderr)
        raise
    finally:
        prom.terminate()
        try:
            prom.wait(timeout=15)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()


def check_k8s_dedup(args):
    """deploy/k8s/dedup: the plan Job and one indexed Job per stage, in the
    order run.sh applies them; each stage's completions and parallelism are
    the plan's --tasks (1 for clusters and commit); every flag is one the
    binary knows. Then the Jobs' own commands run here, as their pods would
    (the volumes as temp dirs, each index in JOB_COMPLETION_INDEX), and
    write what one `neardup dedup` process writes."""
    import yaml  # python3-yaml, which yamllint brings
    if not args.neardup:
        raise Skip("needs --neardup")
    here = os.path.join(args.repo, "deploy/k8s/dedup")
    run_sh = read(f"{here}/run.sh")
    order = re.search(r"for stage in ([a-z ]+); do", run_sh)[1].split()
    help_text = subprocess.run([args.neardup, "dedup-task", "--help"],
                               capture_output=True, text=True,
                               check=True).stdout
    stages = re.findall(r"[a-z]+", re.search(
        r"--stage[^\n]*\n?[^\n]*?(signatures[a-z ,]+)", help_text)[1])
    stages = [w for w in stages if w not in ("or", "and")]
    assert order == ["plan"] + stages, f"run.sh runs {order}, stages {stages}"
    claims = {d["metadata"]["name"] for d in
              yaml.safe_load_all(read(f"{here}/volumes.yaml"))}
    jobs = {}
    for stage in order:
        job = yaml.safe_load(read(f"{here}/jobs/{stage}.yaml"))
        assert job["kind"] == "Job", stage
        assert job["metadata"]["name"] == f"neardup-dedup-{stage}", stage
        pod = job["spec"]["template"]["spec"]
        used = {v["persistentVolumeClaim"]["claimName"]
                for v in pod["volumes"]}
        assert used == claims, f"{stage} mounts {used}, volumes.yaml {claims}"
        jobs[stage] = job
    plan = " ".join(jobs["plan"]["spec"]["template"]["spec"]["containers"][0]
                    ["command"][2].split())
    tasks = int(re.search(r"--tasks (\d+)", plan)[1])
    dedup_flags = long_flags(args.neardup, "dedup")
    for flag in re.findall(r" --([a-z-]+)", plan):
        assert flag in dedup_flags, f"plan.yaml: neardup dedup has no --{flag}"
    task_flags = long_flags(args.neardup, "dedup-task")
    for stage in stages:
        spec = jobs[stage]["spec"]
        want = 1 if stage in ("clusters", "commit") else tasks
        assert spec["completionMode"] == "Indexed", stage
        if stage == "signatures" and "--reference" in plan:
            # Plus the references' parts, which only the plan knows.
            assert spec["completions"] == spec["parallelism"] > tasks, stage
            continue
        assert spec["completions"] == spec["parallelism"] == want, \
            f"{stage}: completions {spec['completions']}, parallelism " \
            f"{spec['parallelism']}; the plan has --tasks {tasks}"
        command = spec["template"]["spec"]["containers"][0]["command"]
        assert command[:2] == ["neardup", "dedup-task"], command
        assert command[command.index("--stage") + 1] == stage, command
        assert command[command.index("--work-dir") + 1] == "/work", command
        for flag in re.findall(r"--([a-z-]+)", " ".join(command)):
            assert flag in task_flags, f"{stage}: no --{flag}"

    # The commands, run as the pods would.
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(f"{tmp}/data/in")
        for f in range(3):
            with open(f"{tmp}/data/in/part-{f}.jsonl", "w") as out:
                for i in range(30):
                    words = " ".join(f"w{f}x{i // 2}y{w}" for w in range(30))
                    extra = " extra" if i % 2 else ""
                    out.write(json.dumps({"text": words + extra}) + "\n")
        # The pods start in the image's read-only WORKDIR.
        workdir = f"{tmp}/workdir"
        os.makedirs(workdir)
        os.chmod(workdir, 0o555)
        local = plan.replace("/data", f"{tmp}/data").replace(
            "/work", f"{tmp}/work").replace("neardup dedup",
                                            f"{args.neardup} dedup")
        env = dict(os.environ)
        result = subprocess.run(["sh", "-c", local], capture_output=True,
                                text=True, env=env, cwd=workdir)
        assert result.returncode == 0, f"plan: {result.stdout}{result.stderr}"
        for stage in stages:
            spec = jobs[stage]["spec"]
            command = spec["template"]["spec"]["containers"][0]["command"]
            command = [args.neardup] + [
                c.replace("/work", f"{tmp}/work") for c in command[1:]]
            for index in range(spec["completions"]):
                env["JOB_COMPLETION_INDEX"] = str(index)
                result = subprocess.run(command, capture_output=True,
                                        text=True, env=env, cwd=workdir)
                assert result.returncode == 0, \
                    f"{stage} {index}: {result.stdout}{result.stderr}"
        one = re.sub(r" --(tasks|memory|work-dir) \S+| --plan-only", "",
                     local).replace("/out/", "/one-")
        result = subprocess.run(["sh", "-c", one], capture_output=True,
                                text=True, cwd=tmp)
        assert result.returncode == 0, f"one process: {result.stderr}"
        for name in ("deduped.jsonl", "clusters.jsonl"):
            staged = read(f"{tmp}/data/out/{name}")
            assert staged == read(f"{tmp}/data/one-{name}"), name
            assert staged, name
    print(f"ok: deploy/k8s/dedup, {len(stages)} stages of {tasks} tasks, "
          "run as their pods would: the output of one process")


CHECKS = {
    "k8s_dedup": check_k8s_dedup,
    "yamllint": check_yamllint,
    "promtool": check_promtool,
    "compose": check_compose,
    "static": check_static,
    "metrics": check_metrics,
    "prometheus": check_prometheus,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=sorted(CHECKS))
    parser.add_argument("--repo", required=True)
    parser.add_argument("--neardupd")
    parser.add_argument("--neardup")
    args = parser.parse_args()
    try:
        CHECKS[args.check](args)
    except Skip as e:
        print(f"SKIP: {e}")
        return SKIP
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
