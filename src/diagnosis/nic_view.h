// Internal to diagnosis: what the NIC rules (rules_nic_*.cc, rules_drop_ladder.cc) read of one
// end beside the run view: its NIC's counters summed over the counted samples, the driver's
// counters that moved (analysis/driver_counters.h), and the goodput through the end. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/driver_counters.h"
#include "diagnosis/run_view.h"

namespace nicbench::diagnosis {

// True when the end's NIC is hardware (not loopback, veth, tun, ...).
bool HardwareNic(const End& end);

// A /sys/class/net/IF/statistics counter ("rx_packets") summed over the end's counted samples;
// nullopt when no sample carries it.
std::optional<int64_t> NicCounterSum(const RunView& view, const End& end, const std::string& key);

// A /proc/net/snmp or netstat counter ("TcpExt.TCPRcvQDrop") summed the same way.
std::optional<int64_t> NetCounterSum(const RunView& view, const End& end, const std::string& key);

// Goodput through the end: the flows it sends plus those it receives, bits per second.
double BitsThrough(const RunView& view, const End& end);

// Packets the end's NIC carried over the counted samples (rx_packets + tx_packets), or, when the
// counters are unknown, data segments estimated from the bytes through the end and the MTU
// (`estimated` says which).
std::optional<double> PacketsPerSecond(const RunView& view, const End& end, bool* estimated);

// The end's NIC driver name, "" when unknown.
std::string DriverOf(const End& end);

// "`ethtool -G eth0 rx 4096`": the command line with the end's interface.
std::string Command(const End& end, const std::string& args);

}  // namespace nicbench::diagnosis
