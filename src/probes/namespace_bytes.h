// The IPv4 bytes of every network namespace of this host: the host-wide side of "is this end's
// packet work the test's own" (analysis/other_traffic.h). The kernel keeps IpExt InOctets and
// OutOctets per namespace (struct netns_mib, net/ipv4/proc.c), so a namespace is read through a
// process in it: /proc/PID/net/netstat holds its counters, and the inode number of that entry,
// which each namespace registers for itself, tells the namespaces apart (the ns link,
// /proc/PID/ns/net "net:[INODE]", does too, but needs ptrace access to the process). Bytes, not
// packets: a neighbour's 64 KB GSO packet is one packet against forty of a test without TSO, but
// the same bytes.
//
// What it does not see: a namespace no process is in (bound under /run/netns with nothing
// running in it, or held by a descriptor alone), and a thread that entered another namespace
// than its process's. Such a namespace moves IP bytes only when it forwards (a router
// namespace); a bridge or a veth between namespaces moves none (they are below IP).
//
// Cost: one readlink per process and one read of netstat per namespace, on the measuring
// thread at each interval boundary, never on the data path. One read took 0.83 ms of wall time
// and 0.38 ms of CPU (bench/probes_sampler_bench.cc BM_ReadNamespaceOctets) on the 2-core
// build machine with 142 processes in 3 namespaces at a load average of 13: at the default
// 1 s interval 0.04% of a core, at the shortest (100 ms) 0.4%.
//
// Thread safety: pure functions and a reader through the caller's FileSource (not shared
// between threads).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/file_source.h"

namespace nicbench::probes {

// A network namespace's inode -> its IpExt InOctets + OutOctets, cumulative since it was made.
using NamespaceOctets = std::map<uint64_t, uint64_t>;

// The inode of a /proc/PID/ns/net link's text, "net:[4026531840]"; Error for any other text.
Result<uint64_t> ParseNetnsLink(std::string_view link);

// InOctets + OutOctets of the IpExt pair of lines of a /proc/net/netstat text; Error when the
// lines or the two counters are missing.
Result<uint64_t> ParseIpExtOctets(std::string_view netstat);

// Every namespace a process of the host (each /proc/PID) is in, with its octets, read through
// the first of its processes that answers; a process that exits during the read is skipped.
// Since a namespace left out would read as no other traffic, it fails rather than leave one
// out: with EACCES when a process's namespace is not readable (through the ns link, for a
// source that is not a directory tree: ptrace access) or /proc hides processes (hidepid), with
// EOPNOTSUPP in a PID namespace of its own (a container sees its own processes only), with
// ENOENT when /proc lists no process (a captured tree).
Result<NamespaceOctets> ReadNamespaceOctets(FileSource& files, std::string& buffer);

// The bytes the namespaces of both readings moved between them. A namespace in `after` only
// counts from that reading on (its counters since it was made are not this interval's); one
// gone by `after` is left out; a counter that went backwards counts 0.
uint64_t DiffNamespaceOctets(const NamespaceOctets& before, const NamespaceOctets& after);

}  // namespace nicbench::probes
