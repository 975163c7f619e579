// The monitor's recorded series (--record DIR, --replay DIR; docs/monitor.md, "Record and
// replay"): one directory per sample, each a small captured tree of exactly the files the host
// sampler reads, which probes::DirFileSource reads back through the same parsers.
//
//   DIR/interface                      the watched interface's name (empty: none)
//   DIR/000001/time                    Unix seconds when the files were read
//   DIR/000001/proc/{stat,interrupts,softirqs,net/softnet_stat,net/snmp,net/netstat}
//   DIR/000001/sys/class/net/IF/{carrier,speed,statistics/*}
//
// Internal to the job layer. Thread safety: thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "job/monitor_rules.h"
#include "probes/file_source.h"

namespace nicbench::job {

// /sys/class/net/IF/carrier and speed through `files`; each unknown when unreadable (no
// carrier makes `speed` read EINVAL; veth and loopback report -1).
LinkState ReadLinkState(probes::FileSource& files, const std::string& iface);

// Starts a series in `dir` (created; must be empty or missing).
Status StartSeries(const std::string& dir, const std::string& iface);

// Copies the files of one sample from `files` into DIR/NNNNNN (index from 1).
Status WriteSeriesSample(probes::FileSource& files, const std::string& dir, size_t index,
                         const std::string& iface, double at_unix);

struct SeriesEntry {
  std::string path;  // DIR/NNNNNN
  double at_unix = 0;
};
struct Series {
  std::string iface;
  std::vector<SeriesEntry> samples;  // in order
};
// The series in `dir`; an error naming what is missing.
Result<Series> ReadSeries(const std::string& dir);

}  // namespace nicbench::job
