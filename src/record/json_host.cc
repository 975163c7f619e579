// JSON form of the host and NIC facts (facts.h), the per-interval host samples (host_sample.h)
// and the TestSpec. Shape and rules: record/json.h, docs/json-schema.md.
#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/json_internal.h"
#include "record/json_rr.h"

namespace nicbench::record {

using json_detail::EnumField;
using json_detail::EnumName;
using json_detail::Field;
using json_detail::LaterField;
using json_detail::MeasuredField;
using json_detail::NameOf;
using json_detail::Num;
using json_detail::RequireObject;
using nlohmann::json;

// ---- facts.h

void to_json(json& j, const HostFacts& v) {
  j = json::object();
  PutMeasured(j, "hostname", v.hostname);
  PutMeasured(j, "kernel", v.kernel);
  PutMeasured(j, "cpu_model", v.cpu_model);
  PutMeasured(j, "cpu_count", v.cpu_count);
}

void from_json(const json& j, HostFacts& v) {
  RequireObject(j);
  MeasuredField(j, "hostname", v.hostname);
  MeasuredField(j, "kernel", v.kernel);
  MeasuredField(j, "cpu_model", v.cpu_model);
  MeasuredField(j, "cpu_count", v.cpu_count);
}

void to_json(json& j, const OffloadState& v) {
  j = json{{"name", v.name}, {"on", v.on}, {"fixed", v.fixed}};
}

void from_json(const json& j, OffloadState& v) {
  RequireObject(j);
  Field(j, "name", v.name);
  Field(j, "on", v.on);
  Field(j, "fixed", v.fixed);
}

void to_json(json& j, const RingSizes& v) {
  j = json{{"rx", v.rx}, {"tx", v.tx}, {"rx_max", v.rx_max}, {"tx_max", v.tx_max}};
}

void from_json(const json& j, RingSizes& v) {
  RequireObject(j);
  Field(j, "rx", v.rx);
  Field(j, "tx", v.tx);
  Field(j, "rx_max", v.rx_max);
  Field(j, "tx_max", v.tx_max);
}

void to_json(json& j, const ChannelCounts& v) {
  j = json{{"rx", v.rx},         {"tx", v.tx},         {"other", v.other},
           {"combined", v.combined}, {"rx_max", v.rx_max}, {"tx_max", v.tx_max},
           {"other_max", v.other_max}, {"combined_max", v.combined_max}};
}

void from_json(const json& j, ChannelCounts& v) {
  RequireObject(j);
  Field(j, "rx", v.rx);
  Field(j, "tx", v.tx);
  Field(j, "other", v.other);
  Field(j, "combined", v.combined);
  Field(j, "rx_max", v.rx_max);
  Field(j, "tx_max", v.tx_max);
  Field(j, "other_max", v.other_max);
  Field(j, "combined_max", v.combined_max);
}

void to_json(json& j, const Coalescing& v) {
  j = json{{"rx_usecs", v.rx_usecs},       {"rx_frames", v.rx_frames},
           {"tx_usecs", v.tx_usecs},       {"tx_frames", v.tx_frames},
           {"adaptive_rx", v.adaptive_rx}, {"adaptive_tx", v.adaptive_tx}};
}

void from_json(const json& j, Coalescing& v) {
  RequireObject(j);
  Field(j, "rx_usecs", v.rx_usecs);
  Field(j, "rx_frames", v.rx_frames);
  Field(j, "tx_usecs", v.tx_usecs);
  Field(j, "tx_frames", v.tx_frames);
  Field(j, "adaptive_rx", v.adaptive_rx);
  Field(j, "adaptive_tx", v.adaptive_tx);
}

void to_json(json& j, const IrqVector& v) {
  j = json{{"irq", v.irq}, {"name", v.name}, {"affinity", v.affinity}};
}

void from_json(const json& j, IrqVector& v) {
  RequireObject(j);
  Field(j, "irq", v.irq);
  Field(j, "name", v.name);
  Field(j, "affinity", v.affinity);
}

void to_json(json& j, const Qdisc& v) {
  j = json{{"kind", v.kind},
           {"rate_bits_per_second", v.rate_bits_per_second},
           {"overhead_bytes", v.overhead_bytes},
           {"burst_bytes", v.burst_bytes}};
}

void from_json(const json& j, Qdisc& v) {
  RequireObject(j);
  Field(j, "kind", v.kind);
  Field(j, "rate_bits_per_second", v.rate_bits_per_second);
  json_detail::LaterField(j, "overhead_bytes", v.overhead_bytes);  // absent from older peers
  json_detail::LaterField(j, "burst_bytes", v.burst_bytes);
}

void to_json(json& j, const PciLink& v) {
  j = json{{"speed_gts", Num(v.speed_gts)}, {"width", v.width}};
}

void from_json(const json& j, PciLink& v) {
  RequireObject(j);
  Field(j, "speed_gts", v.speed_gts);
  Field(j, "width", v.width);
}

void to_json(json& j, const PciLinkState& v) { j = json{{"current", v.current}, {"max", v.max}}; }

void from_json(const json& j, PciLinkState& v) {
  RequireObject(j);
  Field(j, "current", v.current);
  Field(j, "max", v.max);
}

void to_json(json& j, const PciInterruptCap& v) {
  j = json{{"messages", v.messages}, {"enabled", v.enabled},
           {"enabled_messages", v.enabled_messages}};
}

void from_json(const json& j, PciInterruptCap& v) {
  RequireObject(j);
  Field(j, "messages", v.messages);
  Field(j, "enabled", v.enabled);
  Field(j, "enabled_messages", v.enabled_messages);
}

void to_json(json& j, const PciIdentity& v) {
  j = json{{"vendor_id", v.vendor_id},
           {"device_id", v.device_id},
           {"vendor_name", v.vendor_name},
           {"device_name", v.device_name},
           {"subsystem_vendor_id", v.subsystem_vendor_id},
           {"subsystem_device_id", v.subsystem_device_id},
           {"subsystem_name", v.subsystem_name},
           {"class_id", v.class_id},
           {"class_name", v.class_name},
           {"revision", v.revision}};
  PutMeasured(j, "link", v.link);
  PutMeasured(j, "msi", v.msi);
  PutMeasured(j, "msix", v.msix);
}

void from_json(const json& j, PciIdentity& v) {
  RequireObject(j);
  Field(j, "vendor_id", v.vendor_id);
  Field(j, "device_id", v.device_id);
  Field(j, "vendor_name", v.vendor_name);
  Field(j, "device_name", v.device_name);
  // Members added later: a record from an older nicbench has none of them.
  LaterField(j, "subsystem_vendor_id", v.subsystem_vendor_id);
  LaterField(j, "subsystem_device_id", v.subsystem_device_id);
  LaterField(j, "subsystem_name", v.subsystem_name);
  LaterField(j, "class_id", v.class_id);
  LaterField(j, "class_name", v.class_name);
  LaterField(j, "revision", v.revision);
  MeasuredField(j, "link", v.link);
  MeasuredField(j, "msi", v.msi);
  MeasuredField(j, "msix", v.msix);
}

void to_json(json& j, const NicFacts& v) {
  j = json{{"interface", v.interface}, {"loopback", v.loopback}};
  PutMeasured(j, "driver", v.driver);
  PutMeasured(j, "driver_version", v.driver_version);
  PutMeasured(j, "firmware_version", v.firmware_version);
  PutMeasured(j, "bus_info", v.bus_info);
  PutMeasured(j, "pci", v.pci);
  PutMeasured(j, "speed_mbps", v.speed_mbps);
  PutMeasured(j, "duplex", v.duplex);
  PutMeasured(j, "autoneg", v.autoneg);
  PutMeasured(j, "mtu", v.mtu);
  PutMeasured(j, "offloads", v.offloads);
  PutMeasured(j, "rings", v.rings);
  PutMeasured(j, "coalescing", v.coalescing);
  PutMeasured(j, "channels", v.channels);
  PutMeasured(j, "irq_mode", v.irq_mode);
  PutMeasured(j, "irq_vectors", v.irq_vectors);
  PutMeasured(j, "counters", v.counters);
  PutMeasured(j, "driver_stats", v.driver_stats);
  PutMeasured(j, "qdisc", v.qdisc);
}

void from_json(const json& j, NicFacts& v) {
  RequireObject(j);
  Field(j, "interface", v.interface);
  Field(j, "loopback", v.loopback);
  MeasuredField(j, "driver", v.driver);
  MeasuredField(j, "driver_version", v.driver_version);
  MeasuredField(j, "firmware_version", v.firmware_version);
  MeasuredField(j, "bus_info", v.bus_info);
  MeasuredField(j, "pci", v.pci);
  MeasuredField(j, "speed_mbps", v.speed_mbps);
  MeasuredField(j, "duplex", v.duplex);
  MeasuredField(j, "autoneg", v.autoneg);
  MeasuredField(j, "mtu", v.mtu);
  MeasuredField(j, "offloads", v.offloads);
  MeasuredField(j, "rings", v.rings);
  MeasuredField(j, "coalescing", v.coalescing);
  MeasuredField(j, "channels", v.channels);
  MeasuredField(j, "irq_mode", v.irq_mode);
  MeasuredField(j, "irq_vectors", v.irq_vectors);
  MeasuredField(j, "counters", v.counters);
  MeasuredField(j, "driver_stats", v.driver_stats);
  MeasuredField(j, "qdisc", v.qdisc);
}

// ---- host_sample.h

void to_json(json& j, const CpuShare& v) {
  j = json{{"cpu", v.cpu},          {"user", Num(v.user)},       {"nice", Num(v.nice)},
           {"system", Num(v.system)}, {"idle", Num(v.idle)},     {"iowait", Num(v.iowait)},
           {"irq", Num(v.irq)},     {"softirq", Num(v.softirq)}, {"steal", Num(v.steal)}};
}

void from_json(const json& j, CpuShare& v) {
  RequireObject(j);
  Field(j, "cpu", v.cpu);
  Field(j, "user", v.user);
  Field(j, "nice", v.nice);
  Field(j, "system", v.system);
  Field(j, "idle", v.idle);
  Field(j, "iowait", v.iowait);
  Field(j, "irq", v.irq);
  Field(j, "softirq", v.softirq);
  Field(j, "steal", v.steal);
}

void to_json(json& j, const IrqRate& v) {
  j = json{{"irq", v.irq},         {"name", v.name},       {"chip", v.chip},
           {"nic", v.nic},         {"nic_queue", v.nic_queue}, {"per_cpu", v.per_cpu},
           {"total", v.total},     {"per_second", Num(v.per_second)}};
}

void from_json(const json& j, IrqRate& v) {
  RequireObject(j);
  Field(j, "irq", v.irq);
  Field(j, "name", v.name);
  Field(j, "chip", v.chip);
  Field(j, "nic", v.nic);
  Field(j, "nic_queue", v.nic_queue);
  Field(j, "per_cpu", v.per_cpu);
  Field(j, "total", v.total);
  Field(j, "per_second", v.per_second);
}

void to_json(json& j, const SoftnetDelta& v) {
  j = json{{"cpu", v.cpu},
           {"processed", v.processed},
           {"dropped", v.dropped},
           {"time_squeeze", v.time_squeeze}};
}

void from_json(const json& j, SoftnetDelta& v) {
  RequireObject(j);
  Field(j, "cpu", v.cpu);
  Field(j, "processed", v.processed);
  Field(j, "dropped", v.dropped);
  Field(j, "time_squeeze", v.time_squeeze);
}

void to_json(json& j, const ProcessUsage& v) {
  j = json{{"user_seconds", Num(v.user_seconds)},
           {"system_seconds", Num(v.system_seconds)},
           {"voluntary_switches", v.voluntary_switches},
           {"involuntary_switches", v.involuntary_switches},
           {"minor_faults", v.minor_faults},
           {"major_faults", v.major_faults},
           {"allowed_cpus", v.allowed_cpus}};
}

void from_json(const json& j, ProcessUsage& v) {
  RequireObject(j);
  Field(j, "user_seconds", v.user_seconds);
  Field(j, "system_seconds", v.system_seconds);
  Field(j, "voluntary_switches", v.voluntary_switches);
  Field(j, "involuntary_switches", v.involuntary_switches);
  Field(j, "minor_faults", v.minor_faults);
  Field(j, "major_faults", v.major_faults);
  // Added after schema 1 first shipped: optional, so older peers still read.
  if (j.contains("allowed_cpus")) Field(j, "allowed_cpus", v.allowed_cpus);
}

void to_json(json& j, const RunQueueDelay& v) {
  j = json{{"on_cpu_seconds", Num(v.on_cpu_seconds)},
           {"waiting_seconds", Num(v.waiting_seconds)},
           {"threads", v.threads}};
}

void from_json(const json& j, RunQueueDelay& v) {
  RequireObject(j);
  Field(j, "on_cpu_seconds", v.on_cpu_seconds);
  Field(j, "waiting_seconds", v.waiting_seconds);
  Field(j, "threads", v.threads);
}

void to_json(json& j, const HostInterval& v) {
  j = json{{"start", Num(v.start)}, {"end", Num(v.end)}};
  PutMeasured(j, "cpus", v.cpus);
  PutMeasured(j, "cpu_total", v.cpu_total);
  PutMeasured(j, "irqs", v.irqs);
  PutMeasured(j, "net_rx_softirqs", v.net_rx_softirqs);
  PutMeasured(j, "net_tx_softirqs", v.net_tx_softirqs);
  PutMeasured(j, "softnet", v.softnet);
  PutMeasured(j, "context_switches", v.context_switches);
  PutMeasured(j, "interrupts", v.interrupts);
  PutMeasured(j, "net_counters", v.net_counters);
  PutMeasured(j, "process", v.process);
  PutMeasured(j, "run_queue", v.run_queue);
  PutMeasured(j, "nic_counters", v.nic_counters);
}

void from_json(const json& j, HostInterval& v) {
  RequireObject(j);
  Field(j, "start", v.start);
  Field(j, "end", v.end);
  MeasuredField(j, "cpus", v.cpus);
  MeasuredField(j, "cpu_total", v.cpu_total);
  MeasuredField(j, "irqs", v.irqs);
  MeasuredField(j, "net_rx_softirqs", v.net_rx_softirqs);
  MeasuredField(j, "net_tx_softirqs", v.net_tx_softirqs);
  MeasuredField(j, "softnet", v.softnet);
  MeasuredField(j, "context_switches", v.context_switches);
  MeasuredField(j, "interrupts", v.interrupts);
  MeasuredField(j, "net_counters", v.net_counters);
  MeasuredField(j, "process", v.process);
  MeasuredField(j, "run_queue", v.run_queue);
  MeasuredField(j, "nic_counters", v.nic_counters);
}

// ---- test_spec.h

namespace {

constexpr EnumName<Transport> kTransports[] = {{Transport::kTcp, "tcp"}, {Transport::kUdp, "udp"}};
constexpr EnumName<Direction> kDirections[] = {{Direction::kForward, "forward"},
                                               {Direction::kReverse, "reverse"},
                                               {Direction::kBidirectional, "bidirectional"}};
constexpr EnumName<AddressFamily> kFamilies[] = {
    {AddressFamily::kAny, "any"}, {AddressFamily::kIpv4, "ipv4"}, {AddressFamily::kIpv6, "ipv6"}};
constexpr EnumName<ZeroCopy> kZeroCopies[] = {{ZeroCopy::kOff, "off"},
                                              {ZeroCopy::kSendfile, "sendfile"},
                                              {ZeroCopy::kMsgZerocopy, "msg_zerocopy"}};

void MillisecondsField(const json& j, const char* key, std::chrono::milliseconds& out) {
  int64_t ms = 0;
  Field(j, key, ms);
  out = std::chrono::milliseconds(ms);
}

}  // namespace

const char* DirectionName(Direction d) { return NameOf(kDirections, d); }

void to_json(json& j, const TestSpec& v) {
  j = json::object();
  j["transport"] = NameOf(kTransports, v.transport);
  j["direction"] = NameOf(kDirections, v.direction);
  j["parallel"] = v.parallel;
  j["duration_ms"] = v.duration.count();
  j["bytes"] = v.bytes;
  j["blocks"] = v.blocks;
  j["omit_ms"] = v.omit.count();
  j["interval_ms"] = v.interval.count();
  j["block_bytes"] = v.block_bytes;
  j["rate_bits_per_second"] = v.rate_bits_per_second;
  j["pacing_timer_us"] = v.pacing_timer_us;
  j["burst"] = v.burst;
  j["fq_rate_bits_per_second"] = v.fq_rate_bits_per_second;
  j["window_bytes"] = v.window_bytes;
  j["mss_bytes"] = v.mss_bytes;
  j["no_delay"] = v.no_delay;
  j["congestion"] = v.congestion;
  j["tos"] = v.tos;
  j["zero_copy"] = NameOf(kZeroCopies, v.zero_copy);
  j["skip_rx_copy"] = v.skip_rx_copy;
  j["udp_counters_64bit"] = v.udp_counters_64bit;
  j["repeating_payload"] = v.repeating_payload;
  j["get_server_output"] = v.get_server_output;
  j["title"] = v.title;
  j["extra_data"] = v.extra_data;
  j["family"] = NameOf(kFamilies, v.family);
  j["bind_address"] = v.bind_address;
  j["client_port"] = v.client_port;
  j["dont_fragment"] = v.dont_fragment;
  j["server_affinity"] = v.server_affinity;
  j["flowlabel"] = v.flowlabel;
  j["bind_device"] = v.bind_device;
  j["snd_timeout_ms"] = v.snd_timeout_ms;
  j["mptcp"] = v.mptcp;
  PutRrSpec(j, v.rr);
}

void from_json(const json& j, TestSpec& v) {
  RequireObject(j);
  EnumField(j, "transport", kTransports, v.transport);
  EnumField(j, "direction", kDirections, v.direction);
  Field(j, "parallel", v.parallel);
  MillisecondsField(j, "duration_ms", v.duration);
  Field(j, "bytes", v.bytes);
  Field(j, "blocks", v.blocks);
  MillisecondsField(j, "omit_ms", v.omit);
  MillisecondsField(j, "interval_ms", v.interval);
  Field(j, "block_bytes", v.block_bytes);
  Field(j, "rate_bits_per_second", v.rate_bits_per_second);
  Field(j, "pacing_timer_us", v.pacing_timer_us);
  Field(j, "burst", v.burst);
  Field(j, "fq_rate_bits_per_second", v.fq_rate_bits_per_second);
  Field(j, "window_bytes", v.window_bytes);
  Field(j, "mss_bytes", v.mss_bytes);
  Field(j, "no_delay", v.no_delay);
  Field(j, "congestion", v.congestion);
  Field(j, "tos", v.tos);
  EnumField(j, "zero_copy", kZeroCopies, v.zero_copy);
  Field(j, "skip_rx_copy", v.skip_rx_copy);
  Field(j, "udp_counters_64bit", v.udp_counters_64bit);
  Field(j, "repeating_payload", v.repeating_payload);
  Field(j, "get_server_output", v.get_server_output);
  Field(j, "title", v.title);
  Field(j, "extra_data", v.extra_data);
  EnumField(j, "family", kFamilies, v.family);
  Field(j, "bind_address", v.bind_address);
  Field(j, "client_port", v.client_port);
  // The iperf3 drop-in options, added later: absent from an older nicbench's record.
  LaterField(j, "dont_fragment", v.dont_fragment);
  LaterField(j, "server_affinity", v.server_affinity);
  LaterField(j, "flowlabel", v.flowlabel);
  LaterField(j, "bind_device", v.bind_device);
  LaterField(j, "snd_timeout_ms", v.snd_timeout_ms);
  LaterField(j, "mptcp", v.mptcp);
  ReadRrSpec(j, v.rr);
}

}  // namespace nicbench::record
