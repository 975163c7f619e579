#!/usr/bin/env python3
"""Writes the seed-2 fixtures (monitor --replay series) from the post's own figures.

Constructed, not captured: /work/shared/seeds/nas4free-nic-comparison.txt shows top(1) and
vmstat -i on a two-core NAS4Free (FreeBSD) host, once when all was well and once during the
storm. The series carries those figures in Linux's /proc layout (the parsers' format), one
sample a second:
  calm:  CPU 0 100% idle, CPU 1 1.2% user; em0:rx0 988/s, em0:tx0 1172/s, hpet0 391/s
  storm: CPU 0 100% interrupt; CPU 1 26.3% system, 0.4% interrupt; em0:rx0 898/s,
         em0:tx0 1013/s, hpet0 339/s (the interrupt rates unchanged: the seed-2 signature)
FreeBSD's `interrupt` time is Linux's hard irq; em0's MSI-X vectors are named as Linux's
e1000e/igb name theirs ("em0-rx-0", "em0-tx-0") so the sampler marks them as the NIC's.
  seed2-storm: 8 calm seconds, then 8 seconds of storm.
  seed2-calm:  the same 16 seconds without the storm.
Run from this directory: ./make_seed2.py
"""
import os
import shutil

HZ = 100
T0 = 1700000000
CALM = {"cpu0": dict(idle=100), "cpu1": dict(user=1, idle=99),
        "rx": 988, "tx": 1172, "hpet": 391}
STORM = {"cpu0": dict(irq=100), "cpu1": dict(system=26, idle=74),
         "rx": 898, "tx": 1013, "hpet": 339}
FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest",
          "guest_nice"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def series(name, storm_from):
    root = name
    shutil.rmtree(root, ignore_errors=True)
    write(f"{root}/interface", "em0\n")
    cpu = {c: {k: 1000 for k in FIELDS} for c in ("cpu0", "cpu1")}
    irq = {"rx": 27335698, "tx": 32430146, "hpet": 10825011}
    for i in range(1, 17):
        state = STORM if storm_from and i > storm_from else CALM
        if i > 1:
            for c in ("cpu0", "cpu1"):
                for k, v in state[c].items():
                    cpu[c][k] += v * HZ // 100
            for k in irq:
                irq[k] += state[k]
        d = f"{root}/{i:06}"
        total = {k: cpu["cpu0"][k] + cpu["cpu1"][k] for k in FIELDS}
        line = lambda n, vals: n + " " + " ".join(str(vals[k]) for k in FIELDS) + "\n"
        intr = irq["rx"] + irq["tx"] + irq["hpet"]
        write(f"{d}/proc/stat",
              line("cpu ", total) + line("cpu0", cpu["cpu0"]) + line("cpu1", cpu["cpu1"]) +
              f"intr {intr} 0 0 {irq['hpet']} {irq['rx']} {irq['tx']}\n"
              f"ctxt {1000 + 50 * i}\nbtime {T0 - 75000}\nprocesses 656\n"
              "procs_running 3\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n")
        write(f"{d}/proc/interrupts",
              "           CPU0       CPU1       \n"
              f" 20: {irq['hpet']:>10} {0:>10}   IO-APIC  20-fasteoi   hpet0\n"
              f"257: {irq['rx']:>10} {0:>10}   PCI-MSI 524288-edge      em0-rx-0\n"
              f"258: {0:>10} {irq['tx']:>10}   PCI-MSI 524289-edge      em0-tx-0\n"
              f"NMI: {0:>10} {0:>10}   Non-maskable interrupts\n")
        write(f"{d}/sys/class/net/em0/carrier", "1\n")
        write(f"{d}/sys/class/net/em0/speed", "1000\n")
        write(f"{d}/time", f"{T0 + i}.000\n")


series("seed2-storm", 8)
series("seed2-calm", None)
