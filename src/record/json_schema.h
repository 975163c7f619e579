// The JSON form of every record type, one line per member: the one list that both the writer and
// the reader walk (record/json_codec.h), so what is written is what is read back. Rules and shape:
// record/json.h, docs/json-schema.md. Internal to record/json*.cc and its tests.
//
// To add a member to a record type: add the C++ member, then ONE line at the end of its type's
// list below (the list's order is the order members are read in, so the first bad one is named;
// the written order is alphabetical, nlohmann::json sorts its objects):
//   LaterField("name", &T::name)   a plain member: an older peer's record lacks it and reads
//                                  with the default; this is the line for a new plain member
//   Field("name", &T::name)        a Measured<X>, optional<string> or optional<Record> member
//   (absent already
//                                  reads as unknown / none), or a required plain member (only
//                                  those schema 1 had from the start: a new required member
//                                  would refuse every record stored and every older peer)
//   NullableField("name", &T::name)  an optional<X> written as null when unset (Field leaves
//                                  an unset optional<X> out)
// The JSON name is the C++ name (units in the name: _us, _bytes, _seconds, _bits_per_second).
// A double is written as null when it is not finite and refused when read back; an enum is
// written by name (its NamesOf table below). Forgetting the line does not compile for a plain
// struct (ListsEveryMember); a member that must stay out of the JSON says so with Unserialized().
// A new record type: a FieldsOf() here and its name in NICBENCH_RECORD_JSON_TYPES (json.h).
#pragma once

#include <string>

#include "record/facts.h"
#include "record/host_sample.h"
#include "record/json_codec.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::record::json_detail {

// ---- enums

inline constexpr EnumName<Severity> kSeverities[] = {{Severity::kInfo, "info"},
                                                     {Severity::kNotice, "notice"},
                                                     {Severity::kWarning, "warning"},
                                                     {Severity::kCritical, "critical"}};
inline constexpr EnumName<Transport> kTransports[] = {{Transport::kTcp, "tcp"},
                                                      {Transport::kUdp, "udp"}};
inline constexpr EnumName<Direction> kDirections[] = {{Direction::kForward, "forward"},
                                                      {Direction::kReverse, "reverse"},
                                                      {Direction::kBidirectional, "bidirectional"}};
inline constexpr EnumName<AddressFamily> kFamilies[] = {
    {AddressFamily::kAny, "any"}, {AddressFamily::kIpv4, "ipv4"}, {AddressFamily::kIpv6, "ipv6"}};
inline constexpr EnumName<ZeroCopy> kZeroCopies[] = {{ZeroCopy::kOff, "off"},
                                                     {ZeroCopy::kSendfile, "sendfile"},
                                                     {ZeroCopy::kMsgZerocopy, "msg_zerocopy"}};

inline constexpr EnumName<Role> kRoles[] = {{Role::kClient, "client"}, {Role::kServer, "server"}};

constexpr const auto& NamesOf(Type<Severity>) { return kSeverities; }
constexpr const auto& NamesOf(Type<Role>) { return kRoles; }
constexpr const auto& NamesOf(Type<Transport>) { return kTransports; }
constexpr const auto& NamesOf(Type<Direction>) { return kDirections; }
constexpr const auto& NamesOf(Type<AddressFamily>) { return kFamilies; }
constexpr const auto& NamesOf(Type<ZeroCopy>) { return kZeroCopies; }

// ---- facts.h

constexpr auto FieldsOf(Type<CpuFrequency>) {
  using T = CpuFrequency;
  return Fields(Field("cpu", &T::cpu), Field("governor", &T::governor), Field("driver", &T::driver),
                Field("current_khz", &T::current_khz), Field("min_khz", &T::min_khz),
                Field("max_khz", &T::max_khz));
}

constexpr auto FieldsOf(Type<HostFacts>) {
  using T = HostFacts;
  return Fields(Field("hostname", &T::hostname), Field("kernel", &T::kernel),
                Field("cpu_model", &T::cpu_model), Field("cpu_count", &T::cpu_count),
                Field("cpu_frequencies", &T::cpu_frequencies));
}

constexpr auto FieldsOf(Type<OffloadState>) {
  using T = OffloadState;
  return Fields(Field("name", &T::name), Field("on", &T::on), Field("fixed", &T::fixed));
}

constexpr auto FieldsOf(Type<RingSizes>) {
  using T = RingSizes;
  return Fields(Field("rx", &T::rx), Field("tx", &T::tx), Field("rx_max", &T::rx_max),
                Field("tx_max", &T::tx_max));
}

constexpr auto FieldsOf(Type<PauseSettings>) {
  using T = PauseSettings;
  return Fields(Field("autoneg", &T::autoneg), Field("rx", &T::rx), Field("tx", &T::tx));
}

constexpr auto FieldsOf(Type<ChannelCounts>) {
  using T = ChannelCounts;
  return Fields(Field("rx", &T::rx), Field("tx", &T::tx), Field("other", &T::other),
                Field("combined", &T::combined), Field("rx_max", &T::rx_max),
                Field("tx_max", &T::tx_max), Field("other_max", &T::other_max),
                Field("combined_max", &T::combined_max));
}

constexpr auto FieldsOf(Type<Coalescing>) {
  using T = Coalescing;
  return Fields(Field("rx_usecs", &T::rx_usecs), Field("rx_frames", &T::rx_frames),
                Field("tx_usecs", &T::tx_usecs), Field("tx_frames", &T::tx_frames),
                Field("adaptive_rx", &T::adaptive_rx), Field("adaptive_tx", &T::adaptive_tx));
}

constexpr auto FieldsOf(Type<IrqVector>) {
  using T = IrqVector;
  return Fields(Field("irq", &T::irq), Field("name", &T::name), Field("affinity", &T::affinity),
                LaterField("effective_affinity", &T::effective_affinity));
}

constexpr auto FieldsOf(Type<Qdisc>) {
  using T = Qdisc;
  return Fields(Field("kind", &T::kind), Field("rate_bits_per_second", &T::rate_bits_per_second),
                LaterField("overhead_bytes", &T::overhead_bytes),
                LaterField("burst_bytes", &T::burst_bytes));
}

constexpr auto FieldsOf(Type<PciLink>) {
  using T = PciLink;
  return Fields(Field("speed_gts", &T::speed_gts), Field("width", &T::width));
}

constexpr auto FieldsOf(Type<PciLinkState>) {
  using T = PciLinkState;
  return Fields(Field("current", &T::current), Field("max", &T::max));
}

constexpr auto FieldsOf(Type<PciInterruptCap>) {
  using T = PciInterruptCap;
  return Fields(Field("messages", &T::messages), Field("enabled", &T::enabled),
                Field("enabled_messages", &T::enabled_messages));
}

// PciIdentity has constructors, so the compiler cannot count its members: keep this list whole.
constexpr auto FieldsOf(Type<PciIdentity>) {
  using T = PciIdentity;
  return Fields(Field("vendor_id", &T::vendor_id), Field("device_id", &T::device_id),
                Field("vendor_name", &T::vendor_name), Field("device_name", &T::device_name),
                LaterField("subsystem_vendor_id", &T::subsystem_vendor_id),
                LaterField("subsystem_device_id", &T::subsystem_device_id),
                LaterField("subsystem_name", &T::subsystem_name),
                LaterField("class_id", &T::class_id), LaterField("class_name", &T::class_name),
                LaterField("revision", &T::revision), Field("link", &T::link),
                Field("msi", &T::msi), Field("msix", &T::msix));
}

constexpr auto FieldsOf(Type<NicFacts>) {
  using T = NicFacts;
  return Fields(Field("interface", &T::interface), Field("loopback", &T::loopback),
                Field("driver", &T::driver), Field("driver_version", &T::driver_version),
                Field("firmware_version", &T::firmware_version), Field("bus_info", &T::bus_info),
                Field("pci", &T::pci), Field("speed_mbps", &T::speed_mbps),
                Field("duplex", &T::duplex), Field("autoneg", &T::autoneg), Field("mtu", &T::mtu),
                Field("offloads", &T::offloads), Field("rings", &T::rings),
                Field("coalescing", &T::coalescing), Field("channels", &T::channels),
                Field("irq_mode", &T::irq_mode), Field("irq_vectors", &T::irq_vectors),
                Field("counters", &T::counters), Field("driver_stats", &T::driver_stats),
                Field("qdisc", &T::qdisc), LaterField("driver_stats_after", &T::driver_stats_after),
                Field("numa_node", &T::numa_node), Field("local_cpus", &T::local_cpus),
                Field("pause", &T::pause));
}

// ---- host_sample.h

constexpr auto FieldsOf(Type<CpuShare>) {
  using T = CpuShare;
  return Fields(Field("cpu", &T::cpu), Field("user", &T::user), Field("nice", &T::nice),
                Field("system", &T::system), Field("idle", &T::idle), Field("iowait", &T::iowait),
                Field("irq", &T::irq), Field("softirq", &T::softirq), Field("steal", &T::steal));
}

constexpr auto FieldsOf(Type<IrqRate>) {
  using T = IrqRate;
  return Fields(Field("irq", &T::irq), Field("name", &T::name), Field("chip", &T::chip),
                Field("nic", &T::nic), Field("nic_queue", &T::nic_queue),
                Field("per_cpu", &T::per_cpu), Field("total", &T::total),
                Field("per_second", &T::per_second));
}

constexpr auto FieldsOf(Type<SoftnetDelta>) {
  using T = SoftnetDelta;
  return Fields(Field("cpu", &T::cpu), Field("processed", &T::processed),
                Field("dropped", &T::dropped), Field("time_squeeze", &T::time_squeeze));
}

constexpr auto FieldsOf(Type<ProcessUsage>) {
  using T = ProcessUsage;
  return Fields(
      Field("user_seconds", &T::user_seconds), Field("system_seconds", &T::system_seconds),
      Field("voluntary_switches", &T::voluntary_switches),
      Field("involuntary_switches", &T::involuntary_switches),
      Field("minor_faults", &T::minor_faults), Field("major_faults", &T::major_faults),
      LaterField("allowed_cpus", &T::allowed_cpus), LaterField("ran_on_cpus", &T::ran_on_cpus));
}

constexpr auto FieldsOf(Type<RunQueueDelay>) {
  using T = RunQueueDelay;
  return Fields(Field("on_cpu_seconds", &T::on_cpu_seconds),
                Field("waiting_seconds", &T::waiting_seconds), Field("threads", &T::threads));
}

constexpr auto FieldsOf(Type<HostInterval>) {
  using T = HostInterval;
  return Fields(Field("start", &T::start), Field("end", &T::end), Field("cpus", &T::cpus),
                Field("cpu_total", &T::cpu_total), Field("irqs", &T::irqs),
                Field("net_rx_softirqs", &T::net_rx_softirqs),
                Field("net_tx_softirqs", &T::net_tx_softirqs), Field("softnet", &T::softnet),
                Field("context_switches", &T::context_switches),
                Field("interrupts", &T::interrupts), Field("net_counters", &T::net_counters),
                Field("process", &T::process), Field("run_queue", &T::run_queue),
                Field("nic_counters", &T::nic_counters), Field("queues", &T::queues),
                Field("host_ip_bytes", &T::host_ip_bytes));
}

constexpr auto FieldsOf(Type<QueueSample>) {
  using T = QueueSample;
  return Fields(Field("qdisc", &T::qdisc), Field("backlog_bytes", &T::backlog_bytes),
                Field("backlog_packets", &T::backlog_packets), Field("drops", &T::drops),
                Field("bql_inflight_bytes", &T::bql_inflight_bytes));
}

// ---- test_spec.h. Durations are integer milliseconds.

constexpr auto FieldsOf(Type<TestSpec>) {
  using T = TestSpec;
  return Fields(
      Field("transport", &T::transport), Field("direction", &T::direction),
      Field("parallel", &T::parallel), Field("duration_ms", &T::duration),
      Field("bytes", &T::bytes), Field("blocks", &T::blocks), Field("omit_ms", &T::omit),
      Field("interval_ms", &T::interval), Field("block_bytes", &T::block_bytes),
      Field("rate_bits_per_second", &T::rate_bits_per_second),
      Field("pacing_timer_us", &T::pacing_timer_us), Field("burst", &T::burst),
      Field("fq_rate_bits_per_second", &T::fq_rate_bits_per_second),
      Field("window_bytes", &T::window_bytes), Field("mss_bytes", &T::mss_bytes),
      Field("no_delay", &T::no_delay), Field("congestion", &T::congestion), Field("tos", &T::tos),
      Field("zero_copy", &T::zero_copy), Field("skip_rx_copy", &T::skip_rx_copy),
      Field("udp_counters_64bit", &T::udp_counters_64bit),
      Field("repeating_payload", &T::repeating_payload),
      Field("get_server_output", &T::get_server_output), Field("title", &T::title),
      Field("extra_data", &T::extra_data), Field("family", &T::family),
      Field("bind_address", &T::bind_address), Field("client_port", &T::client_port),
      // The iperf3 drop-in options, added later: absent from an older nicbench's record.
      LaterField("dont_fragment", &T::dont_fragment),
      LaterField("server_affinity", &T::server_affinity), LaterField("flowlabel", &T::flowlabel),
      LaterField("bind_device", &T::bind_device), LaterField("snd_timeout_ms", &T::snd_timeout_ms),
      LaterField("mptcp", &T::mptcp), LaterField("udp_offload", &T::udp_offload),
      Unserialized(&T::format),  // presentation (-f) of the end that prints
      // written only for --rr/--crr, by json.cc's WriteExtra (json_rr.cc)
      Unserialized(&T::rr));
}

// ---- run_record.h

constexpr auto FieldsOf(Type<LatencyBucket>) {
  using T = LatencyBucket;
  return Fields(Field("us", &T::us), Field("count", &T::count));
}

constexpr auto FieldsOf(Type<LatencySummary>) {
  using T = LatencySummary;
  return Fields(Field("count", &T::count), Field("mean_us", &T::mean_us),
                Field("min_us", &T::min_us), Field("p50_us", &T::p50_us),
                Field("p90_us", &T::p90_us), Field("p99_us", &T::p99_us),
                Field("p99_9_us", &T::p999_us), Field("max_us", &T::max_us));
}

constexpr auto FieldsOf(Type<RrStats>) {
  using T = RrStats;
  // `transactions_per_second` is written and read by json.cc's WriteExtra/ReadExtra: the rate
  // (record::TransactionsPerSecond), which a record from before `seconds` carries instead.
  return Fields(Field("transactions", &T::transactions), Field("lost", &T::lost),
                Field("late", &T::late), NullableField("latency", &T::latency),
                NullableField("connect", &T::connect),
                Field("latency_buckets", &T::latency_buckets),  // --rr-rate
                Field("connect_buckets", &T::connect_buckets), Field("up", &T::up),
                Field("down", &T::down), Field("up_buckets", &T::up_buckets),
                Field("down_buckets", &T::down_buckets), LaterField("seconds", &T::seconds));
}

constexpr auto FieldsOf(Type<ClockOffset>) {
  using T = ClockOffset;
  return Fields(Field("offset_us", &T::offset_us), Field("bound_us", &T::bound_us),
                Field("exchanges", &T::exchanges), Field("kept", &T::kept),
                LaterField("carried", &T::carried));
}

constexpr auto FieldsOf(Type<ProbePhase>) {
  using T = ProbePhase;
  return Fields(Field("seconds", &T::seconds), Field("kept", &T::kept), Field("fresh", &T::fresh),
                Field("probe_bytes", &T::probe_bytes), Field("kept_rtt_us", &T::kept_rtt_us),
                Field("clock", &T::clock));
}

constexpr auto FieldsOf(Type<UnderLoad>) {
  using T = UnderLoad;
  return Fields(Field("probe_rate_per_second", &T::probe_rate_per_second), Field("idle", &T::idle),
                Field("loaded", &T::loaded));
}

constexpr auto FieldsOf(Type<RrSummary>) {
  using T = RrSummary;
  return Fields(
      Field("local", &T::local), NullableField("peer_transactions", &T::peer_transactions),
      NullableField("local_process_us_per_transaction", &T::local_process_us_per_transaction),
      NullableField("remote_process_us_per_transaction", &T::remote_process_us_per_transaction),
      NullableField("local_host_us_per_transaction", &T::local_host_us_per_transaction),
      NullableField("remote_host_us_per_transaction", &T::remote_host_us_per_transaction),
      Field("clock", &T::clock));
}

constexpr auto FieldsOf(Type<TcpInfoSample>) {
  using T = TcpInfoSample;
  return Fields(Field("rtt_us", &T::rtt_us), Field("rttvar_us", &T::rttvar_us),
                Field("snd_cwnd", &T::snd_cwnd), Field("snd_mss", &T::snd_mss),
                Field("pmtu", &T::pmtu), Field("total_retrans", &T::total_retrans),
                Field("pacing_rate_bytes_per_second", &T::pacing_rate_bytes_per_second),
                Field("delivery_rate_bytes_per_second", &T::delivery_rate_bytes_per_second),
                Field("busy_time_us", &T::busy_time_us),
                Field("rwnd_limited_us", &T::rwnd_limited_us),
                Field("sndbuf_limited_us", &T::sndbuf_limited_us), Field("snd_wnd", &T::snd_wnd),
                LaterField("reordering", &T::reordering), LaterField("reord_seen", &T::reord_seen),
                LaterField("dsack_dups", &T::dsack_dups),
                LaterField("notsent_bytes", &T::notsent_bytes), LaterField("unacked", &T::unacked));
}

constexpr auto FieldsOf(Type<StreamInterval>) {
  using T = StreamInterval;
  return Fields(Field("id", &T::id), Field("sender", &T::sender), Field("start", &T::start),
                Field("end", &T::end), Field("bytes", &T::bytes), Field("omitted", &T::omitted),
                Field("retransmits", &T::retransmits), Field("tcp_info", &T::tcp_info),
                Field("packets", &T::packets), Field("lost", &T::lost),
                Field("out_of_order", &T::out_of_order),
                Field("jitter_seconds", &T::jitter_seconds),
                LaterField("transactions", &T::transactions));  // --rr/--crr
}

constexpr auto FieldsOf(Type<IntervalRecord>) {
  using T = IntervalRecord;
  return Fields(Field("start", &T::start), Field("end", &T::end), Field("omitted", &T::omitted),
                Field("streams", &T::streams),
                Field("rr", &T::rr));  // --rr/--crr: every flow of the interval together
}

constexpr auto FieldsOf(Type<StreamTotals>) {
  using T = StreamTotals;
  return Fields(
      Field("id", &T::id), Field("sender", &T::sender), Field("bytes_sent", &T::bytes_sent),
      Field("bytes_received", &T::bytes_received),
      // Not in schema 1: a stored incomplete run reads back as if the peer had reported.
      Unserialized(&T::peer_reported), Field("seconds_sent", &T::seconds_sent),
      Field("seconds_received", &T::seconds_received), Field("retransmits", &T::retransmits),
      Field("packets", &T::packets), Field("lost", &T::lost),
      Field("out_of_order", &T::out_of_order), Field("jitter_seconds", &T::jitter_seconds),
      Field("max_snd_cwnd", &T::max_snd_cwnd), Field("min_rtt_us", &T::min_rtt_us),
      Field("max_rtt_us", &T::max_rtt_us), Field("mean_rtt_us", &T::mean_rtt_us),
      LaterField("rtt_sum_us", &T::rtt_sum_us), LaterField("rtt_samples", &T::rtt_samples));
}

constexpr auto FieldsOf(Type<CpuUtilization>) {
  using T = CpuUtilization;
  return Fields(Field("total_percent", &T::total_percent), Field("user_percent", &T::user_percent),
                Field("system_percent", &T::system_percent));
}

constexpr auto FieldsOf(Type<EndpointRecord>) {
  using T = EndpointRecord;
  return Fields(Field("role", &T::role), Field("software", &T::software), Field("host", &T::host),
                Field("nic", &T::nic), Field("samples", &T::samples),
                Field("intervals", &T::intervals), Field("cpu", &T::cpu),
                Field("congestion_used", &T::congestion_used),
                Field("file", &T::file),  // -F: written only when this end used a file
                LaterField("worker_threads", &T::worker_threads));
}

constexpr auto FieldsOf(Type<Finding>) {
  using T = Finding;
  return Fields(Field("id", &T::id), Field("severity", &T::severity), Field("title", &T::title),
                Field("evidence", &T::evidence), Field("meaning", &T::meaning),
                Field("next_step", &T::next_step));
}

constexpr auto FieldsOf(Type<PeerReport>) {
  using T = PeerReport;
  return Fields(Field("cpu", &T::cpu), Field("congestion_used", &T::congestion_used),
                Field("server_output_text", &T::server_output_text),
                Field("server_output_json", &T::server_output_json));
}

constexpr auto FieldsOf(Type<ConnectionInfo>) {
  using T = ConnectionInfo;
  return Fields(Field("local_host", &T::local_host), Field("local_port", &T::local_port),
                Field("remote_host", &T::remote_host), Field("remote_port", &T::remote_port));
}

// Refuses a record of a newer schema before reading the rest of it, so the error says why.
void CheckSchemaVersion(const int& version);

constexpr auto FieldsOf(Type<RunRecord>) {
  using T = RunRecord;
  return Fields(
      Field("version", &T::version),
      CheckedField("schema_version", &T::schema_version, CheckSchemaVersion),
      Field("timestamp", &T::timestamp), Field("timestamp_secs", &T::timestamp_secs),
      Field("cookie", &T::cookie), Field("spec", &T::spec), Field("server_host", &T::server_host),
      Field("server_port", &T::server_port), Field("connections", &T::connections),
      Field("label", &T::label), Field("stand_profile", &T::stand_profile),
      Field("local", &T::local), Field("remote", &T::remote), Field("intervals", &T::intervals),
      Field("streams", &T::streams), Field("test_seconds", &T::test_seconds),
      Field("findings", &T::findings), Field("error", &T::error),
      LaterField("sndbuf_actual", &T::sndbuf_actual),
      LaterField("rcvbuf_actual", &T::rcvbuf_actual), LaterField("incomplete", &T::incomplete),
      LaterField("peer", &T::peer), Field("rr", &T::rr),  // --rr/--crr (spec.rr)
      LaterField("control_mss_bytes", &T::control_mss_bytes),
      Field("under_load", &T::under_load));  // run --under-load
}

}  // namespace nicbench::record::json_detail
