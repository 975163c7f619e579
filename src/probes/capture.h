// `nicbench inspect --capture DIR`: a snapshot of what the probes read from /proc and /sys, and
// of what the ethtool ioctls and rtnetlink give as the texts ethtool and tc print, written as a
// tree that `--root DIR` (DirFileSource) reads back, so a user can send a machine's
// state for analysis and tests can run the parsers on real machines. Symbolic links are kept as
// they are stored (relative), so the tree resolves inside DIR. Not thread-safe with itself.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "record/facts.h"

namespace nicbench::probes {

// Copies the /proc files the host probes read and, for each interface in `interfaces` (every
// one in /sys/class/net when empty), its sysfs directory, statistics, device link and the PCI
// function that owns it (attributes, configuration space, msi_irqs) under `dir` (created if
// missing). `source_root` is "/" except in tests. Files that cannot be read (write-only
// attributes) are left out; binary BARs, option ROMs and VPD are never read. For each
// interface also the facts files cannot hold (driver and versions, offloads, rings, coalescing,
// channels, driver statistics, the root qdisc): from the ioctls and rtnetlink when
// `source_root` is "/" (WriteNicTexts), else the source tree's own texts, copied.
Status CaptureTree(const std::string& dir, const std::vector<std::string>& interfaces,
                   const std::string& source_root = "/");

// `nic`'s ioctl and netlink facts under `dir`, in the layout of collect.sh's captures, so one
// reader (CollectNicFacts on a captured tree) takes both: ethtool/IF/{i,k,g,c,l,S}.txt as
// `ethtool -i/-k/-g/-c/-l/-S IF` prints them and tc/IF/qdisc.txt (class.txt for htb) as
// `tc -s qdisc|class show dev IF`. A fact that is unknown is an empty text, as ethtool leaves
// it, with X.err beside it holding the reason as the JSON words it ("not supported:
// ETHTOOL_GRINGPARAM: Operation not supported"), so it reads back with the same reason.
// Loopback: only the qdisc. Error when the directory cannot be written.
Status WriteNicTexts(const std::string& dir, const record::NicFacts& nic);

}  // namespace nicbench::probes
