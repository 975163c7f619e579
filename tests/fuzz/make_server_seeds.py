#!/usr/bin/env python3
"""Writes the seeds of the server_conversation fuzz target (tests/fuzz/corpus/server_conversation).

A seed is a script of the client's decisions (tests/fuzz/script.h, docs/fuzzing.md): a byte, a
little-endian number, a text with a two-byte length. Two kinds:
  - built from the protocol: parameters from fields (TCP, UDP, reverse, bidir, RR, CRR, bytes,
    blocks, live samples, server output), refusals, early closes and bytes out of turn;
  - recorded: the parameters and results that real clients (iperf3 3.12, nicbench) sent, read
    from the control_conversation seeds (their client-bytes files), replayed as raw text.

Usage: tests/fuzz/make_server_seeds.py [OUT_DIR]   (default tests/fuzz/corpus/server_conversation)
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Choices (server_client.cc).
STEP = b"\x00"        # a state's first byte: answer normally
STEP_CLOSE = b"\xff"  # close everything at this state
STEP_OUT_OF_TURN = b"\xfe"  # then one byte sent as a state byte
TEST_END, CLIENT_TERMINATE, IPERF_DONE = 4, 12, 16

# Parameter flag bits (ReadParams).
UDP, BLOCK, RATE, WINDOW, MSS, NODELAY, TOS = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40
SKIP_RX, UDP64, OFFLOAD, REPEAT, OUTPUT, TITLE, RR, AFFINITY, STOCK = (
    0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000)


def u16(n):
    return struct.pack("<H", n)


def u32(n):
    return struct.pack("<I", n)


def text(b):
    if isinstance(b, str):
        b = b.encode()
    return u16(len(b)) + b


def params(flags=0, direction=0, parallel=1, end=(0, 2), omit=0, interval=0, block=None,
           rate=None, window=None, mss=None, tos=None, zerocopy=0, congestion=0, title=None,
           rr=None, affinity=None, ext=0):
    """The ReadParams fields in their order; end = (0, duration/100 ms - 1) | (1, bytes) |
    (2, blocks); rr = (mode 0 rr / 1 crr, request, response, burst - 1)."""
    out = u16(flags) + bytes([direction, parallel - 1, end[0]])
    out += u16(end[1]) if end[0] == 1 else bytes([end[1]])
    out += bytes([omit, interval])
    for bit, value in ((BLOCK, block), (RATE, rate), (WINDOW, window)):
        if flags & bit:
            out += u32(value)
    if flags & MSS:
        out += u16(mss)
    if flags & TOS:
        out += bytes([tos])
    out += bytes([zerocopy, congestion])
    if flags & TITLE:
        out += text(title)
    if flags & RR:
        out += bytes([rr[0]]) + u16(rr[1] - 1) + u16(rr[2] - 1) + bytes([rr[3]])
    if flags & AFFINITY:
        out += bytes([affinity])
    if not flags & STOCK:
        out += bytes([ext])  # bit 0: no samples, 1: live samples, 2: announce
    return out


def udp_datagram(seq):
    # iperf3's UDP data header: seconds, microseconds, 32-bit sequence number, then payload.
    return struct.pack(">IiI", 1, 500000, seq) + b"0123456789" * 3


def conversation(p, streams=1, announce=False, data=(), end=TEST_END, results=b"\x00",
                 rr_ready=False, cookie=b"\x00"):
    """A whole test: the cookie, PARAM_EXCHANGE with params `p`, [READY], CREATE_STREAMS with
    each stream's own cookie, TEST_START, TEST_RUNNING with one round of `data` (a text per
    stream), the state byte `end`, EXCHANGE_RESULTS answered with `results`, DISPLAY_RESULTS."""
    out = cookie + STEP + b"\x00" + p
    if announce or rr_ready:
        out += STEP
    out += STEP + b"\x00" + b"\x00" * streams
    out += STEP  # TEST_START
    out += STEP + (b"\x01" + b"".join(text(d) for d in data) if data else b"\x00")
    out += bytes([{TEST_END: 0, CLIENT_TERMINATE: 5}.get(end, 6)])
    if end not in (TEST_END, CLIENT_TERMINATE):
        out += bytes([end])
    out += STEP + results + STEP
    return out


def built_seeds():
    seeds = {}
    seeds["tcp-forward"] = conversation(params(), data=[b"x" * 1000])
    seeds["tcp-forward-empty"] = b""  # every choice 0: the same test, no data
    seeds["tcp-reverse"] = conversation(params(direction=1))
    seeds["tcp-bidir-p2"] = conversation(params(direction=2, parallel=2), streams=4,
                                         data=[b"a" * 100, b"b" * 100, b"", b""])
    seeds["tcp-announce-live"] = conversation(params(interval=1, ext=6), announce=True,
                                              data=[b"y" * 4000])
    seeds["tcp-bytes"] = conversation(params(end=(1, 2000)), data=[b"z" * 2000])
    seeds["tcp-blocks"] = conversation(params(flags=BLOCK, end=(2, 2), block=1000),
                                       data=[b"z" * 2000])
    seeds["tcp-options"] = conversation(
        params(flags=WINDOW | MSS | NODELAY | TOS | REPEAT | OUTPUT | TITLE, window=65536,
               mss=1200, tos=0x10, congestion=2, title="fuzz"), data=[b"q" * 10])
    seeds["tcp-stock"] = conversation(params(flags=STOCK), data=[b"s" * 10])
    seeds["tcp-fuzzed-results"] = conversation(
        params(), data=[b"r" * 10], results=b"\x01" + b"\x05\x03\x02" + u16(7) + b"\x00\x00" + u16(0))
    seeds["udp-forward"] = conversation(
        params(flags=UDP | RATE, rate=1000000), data=[udp_datagram(1)])
    seeds["udp64-reverse"] = conversation(params(flags=UDP | UDP64, direction=1))
    seeds["tcp-rr"] = conversation(params(flags=RR, rr=(0, 8, 8, 0)), rr_ready=True,
                                   data=[b"12345678"])
    seeds["tcp-crr"] = conversation(params(flags=RR, rr=(1, 1, 1, 0)), rr_ready=True)
    seeds["udp-rr"] = conversation(params(flags=UDP | RR, rr=(0, 8, 8, 0)), rr_ready=True,
                                   data=[b"12345678"])
    # Refusals: too many streams, a block above the limit, SCTP, pinned to a CPU.
    seeds["refuse-parallel"] = b"\x00" + STEP + b"\x00" + params(parallel=10)
    seeds["refuse-block"] = b"\x00" + STEP + b"\x00" + params(flags=BLOCK, block=2 << 20)
    seeds["refuse-sctp"] = b"\x00" + STEP + b"\x01" + params() + b"\x00" + b"\x02" + b"\x06\x01"
    seeds["affinity"] = conversation(params(flags=AFFINITY, affinity=0))
    # A key overridden with a wrong type.
    seeds["override-len-string"] = (b"\x00" + STEP + b"\x01" + params() + b"\x00" + b"\x0d" +
                                    b"\x05" + text("big"))
    # Early closes and bytes out of turn.
    seeds["close-at-params"] = b"\x00" + STEP_CLOSE
    seeds["close-at-streams"] = b"\x00" + STEP + b"\x00" + params() + STEP_CLOSE
    seeds["close-at-running"] = conversation(params())[:-4] + b"\x07"
    seeds["client-terminate"] = conversation(params(), end=CLIENT_TERMINATE)
    seeds["state-out-of-turn"] = b"\x00" + STEP_OUT_OF_TURN + bytes([TEST_END])
    seeds["fewer-streams"] = b"\x00" + STEP + b"\x00" + params(parallel=2) + STEP + b"\x06"
    seeds["extra-stream"] = b"\x00" + STEP + b"\x00" + params() + STEP + b"\x07\x00\x00"
    seeds["wrong-stream-cookie"] = b"\x00" + STEP + b"\x00" + params() + STEP + b"\x00\x0f"
    seeds["raw-cookie"] = b"\x01" + text(b"0" * 37)
    seeds["short-cookie"] = b"\x02\x10"
    seeds["raw-params"] = b"\x00" + STEP + b"\x03" + text(b"\x00\x00\x00\x05{\"tc")
    return seeds


def read_frame(data, pos):
    (length,) = struct.unpack(">I", data[pos:pos + 4])
    return data[pos + 4:pos + 4 + length], pos + 4 + length


def recorded_seeds():
    """The parameters and results of each recorded client (control_conversation's
    *-client-bytes: 1 byte, the 37-byte cookie, framed parameters, state bytes, framed
    results, IPERF_DONE), replayed as raw text over as many streams as they asked for."""
    seeds = {}
    src = os.path.join(HERE, "corpus", "control_conversation")
    for name in sorted(os.listdir(src)):
        if not name.endswith("-client-bytes"):
            continue
        data = open(os.path.join(src, name), "rb").read()[1:]
        if len(data) < 41 or data[37] != 0:
            continue  # not a client that got as far as its parameters
        p, pos = read_frame(data, 37)
        while pos < len(data) and data[pos] != 0:
            pos += 1  # state bytes (TEST_END) before the results
        results = read_frame(data, pos)[0] if pos + 4 <= len(data) else b"{}"
        streams = 2 if b'"bidirectional"' in p else 1
        if b'"parallel":2' in p:
            streams *= 2
        udp = b'"udp"' in p
        data_out = [udp_datagram(1) if udp else b"d" * 100] + [b""] * (streams - 1)
        ready = b'"announce":true' in p or b'"rr"' in p
        seed = b"\x00" + STEP + b"\x02" + text(p)
        seed += STEP if ready else b""
        seed += STEP + b"\x00" + b"\x00" * streams + STEP
        seed += STEP + b"\x01" + b"".join(text(d) for d in data_out) + b"\x00"
        seed += STEP + b"\x02" + text(results) + STEP
        seeds["recorded-" + name.replace("-client-bytes", "")] = seed
    return seeds


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus",
                                                              "server_conversation")
    os.makedirs(out, exist_ok=True)
    seeds = {**built_seeds(), **recorded_seeds()}
    for name, seed in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(seed)
    print(f"{len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main()
