#!/usr/bin/env python3
"""Request/response benchmark and agreement check (docs/rr.md), loopback or a stand link.

Interleaved rounds (nicbench, then each peer tool, then nicbench again, ...) so slow drift of a
shared machine hits every tool alike; prints the median of each figure per tool and the ratios.

  bench/rr_compare.py [-n PAIRS] [-t SECONDS] [--modes tcp_rr,tcp_crr,udp_rr,tcp_rr_p2,agree]
                      [--nicbench PATH] [--anchors DIR] [--port-base N]
                      [--stand NAME]   # run the 'agree' mode across `nicbench stand` hosts h1->h2
                      [--spin US]      # also run nicbench with --rr-spin US in tcp_rr, tcp_crr, udp_rr

Modes:
  tcp_rr     nicbench --rr vs netperf TCP_RR vs neper tcp_rr, 1-byte messages, one flow
  tcp_crr    nicbench --crr vs netperf TCP_CRR vs neper tcp_crr
  udp_rr     nicbench --rr -u vs netperf UDP_RR
  tcp_rr_p2  nicbench --rr -P 2 vs two netperf TCP_RR processes at once (rates summed)
  agree      nicbench --rr -l 14,14 vs sockperf ping-pong -m 14 --full-rtt (p50 and mean), and
             the flow's TCP_INFO RTT; both ends' transaction counts
Column cpu_us: the whole host's busy CPU time (user, system, irq, softirq from /proc/stat) while
the client ran, per transaction, in microseconds: both ends and the kernel's work for them,
measured alike for every tool (on loopback only; a busy neighbour inflates every tool alike).
Peer binaries come from --anchors (default ../shared/anchors relative to the repository) and
sockperf from PATH (Debian's package). Traffic goes to 127.0.0.1, or inside the named stand.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TICK = os.sysconf("SC_CLK_TCK")


def host_busy_seconds():
    """The host's busy CPU time so far: user, nice, system, irq, softirq (not idle, iowait, steal)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:8]]
    user, nice, system, _idle, _iowait, irq, softirq = fields
    return (user + nice + system + irq + softirq) / TICK


class HostCpu:
    """Busy CPU seconds of the whole host across a `with` block."""

    def __enter__(self):
        self.start = host_busy_seconds()
        return self

    def __exit__(self, *exc):
        self.seconds = host_busy_seconds() - self.start


def per_transaction_us(cpu, tps, seconds):
    return cpu.seconds * 1e6 / (tps * seconds) if tps > 0 else float("nan")


class Bench:
    def __init__(self, args):
        self.args = args
        self.port = args.port_base
        self.tmp = tempfile.mkdtemp(prefix="rr-bench-")
        self.prefix = []  # a command prefix that runs inside the stand's client host
        self.server_prefix = []
        self.host = "127.0.0.1"
        if args.stand:
            nb = args.nicbench
            self.prefix = [nb, "stand", "exec", "--name", args.stand, "h1", "--"]
            self.server_prefix = [nb, "stand", "exec", "--name", args.stand, "h2", "--"]
            listing = subprocess.run([nb, "stand", "list"], capture_output=True, text=True).stdout
            found = re.search(r"^" + re.escape(args.stand) + r"\b.*\bh2=([\d.]+)/", listing, re.M)
            if not found:
                raise SystemExit(f"stand {args.stand} not found (nicbench stand up --name ...)")
            self.host = found.group(1)

    def next_port(self):
        self.port += 7
        if self.port > self.args.port_base + 900:
            self.port = self.args.port_base
        return self.port

    def start(self, argv):
        p = subprocess.Popen(self.server_prefix + argv, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=self.tmp, start_new_session=True)
        time.sleep(0.5)
        return p

    def stop(self, p):
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()

    def run(self, argv, timeout=None):
        r = subprocess.run(self.prefix + argv, capture_output=True, text=True, cwd=self.tmp,
                           timeout=timeout or self.args.t + 60)
        return r

    # --- the tools -------------------------------------------------------------------------
    def nicbench(self, extra):
        port = self.next_port()
        server = self.start([self.args.nicbench, "serve", "-p", str(port), "-B",
                             "0.0.0.0" if self.args.stand else "127.0.0.1"])
        try:
            with HostCpu() as cpu:
                r = self.run([self.args.nicbench, "run", self.host, "-p", str(port), "--no-store",
                              "-J", "-t", str(self.args.t)] + extra)
        finally:
            self.stop(server)
        doc = json.loads(r.stdout)
        if doc.get("error"):
            raise RuntimeError("nicbench: " + doc["error"])
        rr = doc["end"]["rr"]
        lat = rr["local"]["latency"]
        out = {"tps": rr["local"]["transactions_per_second"], "p50": lat["p50_us"],
               "p99": lat["p99_us"], "mean": lat["mean_us"],
               "client_tx": rr["local"]["transactions"],
               "server_tx": rr.get("peer_transactions") or 0}
        out["cpu_us"] = per_transaction_us(cpu, out["tps"], self.args.t)
        rtts = [s["sender"].get("mean_rtt") for s in doc["end"].get("streams", [])
                if "sender" in s and s["sender"].get("mean_rtt")]
        if rtts:
            out["tcp_info_rtt"] = statistics.mean(rtts)
        return out

    def netserver(self):
        port = self.next_port()
        p = self.start([os.path.join(self.args.anchors, "netserver"), "-D", "-L",
                        ("0.0.0.0" if self.args.stand else "127.0.0.1") + ",inet", "-p", str(port)])
        return p, port

    def netperf_cmd(self, port, test, data_port):
        return [os.path.join(self.args.anchors, "netperf"), "-H", self.host, "-p", str(port),
                "-l", str(self.args.t), "-t", test, "-P", "0", "--", "-r", "1,1", "-P",
                f"{data_port},{data_port + 1}",
                "-o", "TRANSACTION_RATE,P50_LATENCY,P99_LATENCY,MEAN_LATENCY"]

    @staticmethod
    def parse_netperf(text):
        fields = text.strip().splitlines()[-1].split(",")
        return {"tps": float(fields[0]), "p50": float(fields[1]), "p99": float(fields[2]),
                "mean": float(fields[3])}

    def netperf(self, test, copies=1):
        server, port = self.netserver()
        try:
            procs = []
            with HostCpu() as cpu:
                for i in range(copies):
                    argv = self.netperf_cmd(port, test, self.next_port() + 2)
                    procs.append(subprocess.Popen(self.prefix + argv, stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True, cwd=self.tmp))
                results = [self.parse_netperf(p.communicate(timeout=self.args.t + 60)[0])
                           for p in procs]
        finally:
            self.stop(server)
        out = {"tps": sum(r["tps"] for r in results)}
        for key in ("p50", "p99", "mean"):
            out[key] = max(r[key] for r in results)
        out["cpu_us"] = per_transaction_us(cpu, out["tps"], self.args.t)
        return out

    def neper(self, tool):
        ctrl, data = self.next_port(), self.next_port()
        binary = os.path.join(self.args.anchors, "neper-" + tool)
        server = self.start([binary, "-C", str(ctrl), "-P", str(data), "-l", str(self.args.t + 2)])
        try:
            with HostCpu() as cpu:
                r = self.run([binary, "-c", "-H", self.host, "-C", str(ctrl), "-P", str(data),
                              "-l", str(self.args.t), "-p", "50,99"])
        finally:
            self.stop(server)
        kv = dict(re.findall(r"^(\w+)=(\S+)$", r.stdout, re.M))
        tps = float(kv.get("throughput", "nan"))
        return {"tps": tps,
                "p50": float(kv.get("latency_p50", "nan")) * 1e6,
                "p99": float(kv.get("latency_p99", "nan")) * 1e6,
                "mean": float(kv.get("latency_mean", "nan")) * 1e6,
                "cpu_us": per_transaction_us(cpu, tps, self.args.t)}

    def sockperf(self):
        port = self.next_port()
        server = self.start(["sockperf", "server", "--tcp", "-i",
                             "0.0.0.0" if self.args.stand else "127.0.0.1", "-p", str(port)])
        try:
            r = self.run(["sockperf", "ping-pong", "--tcp", "-i", self.host, "-p", str(port),
                          "-t", str(self.args.t), "-m", "14", "--full-rtt", "--pps", "max"])
        finally:
            self.stop(server)
        text = r.stdout + r.stderr
        mean = float(re.search(r"avg-(?:latency|rtt)=([\d.]+)", text).group(1))
        p50 = float(re.search(r"percentile 50\.000 =\s+([\d.]+)", text).group(1))
        p99 = float(re.search(r"percentile 99\.000 =\s+([\d.]+)", text).group(1))
        valid = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; SentMessages=(\d+)", text)
        tps = float(valid.group(2)) / float(valid.group(1)) if valid else float("nan")
        return {"mean": mean, "p50": p50, "p99": p99, "tps": tps}


def median(rows, key):
    values = [r[key] for r in rows if key in r and r[key] == r[key]]
    return statistics.median(values) if values else float("nan")


def report(name, results, keys=("tps", "p50", "p99", "mean")):
    print(f"\n== {name} ({len(next(iter(results.values())))} rounds each, medians)")
    print("tool".ljust(22) + "".join(k.rjust(12) for k in keys))
    for tool, rows in results.items():
        print(tool.ljust(22) + "".join(f"{median(rows, k):12.2f}" for k in keys))
    for ours, base in results.items():
        if not ours.startswith("nicbench"):
            continue
        for tool, rows in results.items():
            if tool.startswith("nicbench"):
                continue
            ratios = "  ".join(f"{k} {median(base, k) / median(rows, k):.3f}" for k in keys
                               if median(rows, k) == median(rows, k) and median(rows, k) > 0)
            print(f"{ours}/{tool}: {ratios}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-n", type=int, default=5, help="rounds per tool (default 5)")
    ap.add_argument("-t", type=int, default=10, help="seconds per run (default 10)")
    ap.add_argument("--modes", default="tcp_rr,tcp_crr,udp_rr,tcp_rr_p2,agree")
    ap.add_argument("--nicbench", default=os.path.join(REPO, "build", "nicbench"))
    ap.add_argument("--anchors", default=os.path.join(REPO, "..", "shared", "anchors"))
    ap.add_argument("--port-base", type=int, default=24000)
    ap.add_argument("--stand", help="run across this stand (h1 -> h2, 198.18.0.2)")
    ap.add_argument("--spin", type=int, default=0,
                    help="also run nicbench with --rr-spin SPIN (microseconds) in tcp_rr, "
                         "tcp_crr and udp_rr")
    args = ap.parse_args()
    b = Bench(args)
    plans = {
        "tcp_rr": {"nicbench": lambda: b.nicbench(["--rr"]),
                   "netperf TCP_RR": lambda: b.netperf("TCP_RR"),
                   "neper tcp_rr": lambda: b.neper("tcp_rr")},
        "tcp_crr": {"nicbench": lambda: b.nicbench(["--crr"]),
                    "netperf TCP_CRR": lambda: b.netperf("TCP_CRR"),
                    "neper tcp_crr": lambda: b.neper("tcp_crr")},
        "udp_rr": {"nicbench": lambda: b.nicbench(["--rr", "-u"]),
                   "netperf UDP_RR": lambda: b.netperf("UDP_RR")},
        "tcp_rr_p2": {"nicbench": lambda: b.nicbench(["--rr", "-P", "2"]),
                      "2x netperf TCP_RR": lambda: b.netperf("TCP_RR", copies=2)},
        "agree": {"nicbench": lambda: b.nicbench(["--rr", "-l", "14,14"]),
                  "sockperf ping-pong": lambda: b.sockperf()},
    }
    if args.spin:
        spin = ["--rr-spin", str(args.spin)]
        for mode, extra in (("tcp_rr", ["--rr"]), ("tcp_crr", ["--crr"]),
                            ("udp_rr", ["--rr", "-u"])):
            plans[mode][f"nicbench --rr-spin {args.spin}"] = (
                lambda extra=extra: b.nicbench(extra + spin))
    if args.stand:
        plans = {k: v for k, v in plans.items() if k == "agree"}
    for mode in args.modes.split(","):
        if mode not in plans:
            continue
        tools = plans[mode]
        if mode == "agree" and not shutil.which("sockperf"):
            print("agree: sockperf not found (apt-get install sockperf)", file=sys.stderr)
            continue
        results = {tool: [] for tool in tools}
        for _ in range(args.n):
            for tool, fn in tools.items():
                try:
                    results[tool].append(fn())
                except Exception as e:  # a failed round is reported, the others still count
                    print(f"{mode} {tool}: {e}", file=sys.stderr)
        results = {k: v for k, v in results.items() if v}
        if not results:
            continue
        keys = ("tps", "p50", "p99", "mean") + (() if args.stand else ("cpu_us",))
        if mode == "agree":
            keys = ("tps", "p50", "mean", "tcp_info_rtt", "client_tx", "server_tx")
        report(f"{mode}{' on stand ' + args.stand if args.stand else ' on loopback'}", results,
               keys)
    shutil.rmtree(b.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
