// `nicbench inspect --capture DIR`: a snapshot of what the probes read from /proc and /sys,
// written as a tree that `--root DIR` (DirFileSource) reads back, so a user can send a machine's
// state for analysis and tests can run the parsers on real machines. Symbolic links are kept as
// they are stored (relative), so the tree resolves inside DIR. Not thread-safe with itself.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace nicbench::probes {

// Copies the /proc files the host probes read and, for each interface in `interfaces` (every
// one in /sys/class/net when empty), its sysfs directory, statistics, device link and the PCI
// function that owns it (attributes, configuration space, msi_irqs) under `dir` (created if
// missing). `source_root` is "/" except in tests. Files that cannot be read (write-only
// attributes) are left out; binary BARs, option ROMs and VPD are never read.
Status CaptureTree(const std::string& dir, const std::vector<std::string>& interfaces,
                   const std::string& source_root = "/");

}  // namespace nicbench::probes
