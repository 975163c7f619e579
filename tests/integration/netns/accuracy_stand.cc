#include "accuracy_stand.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "diagnosis/link.h"

namespace nicbench::accuracy {

Result<stand::ScopedStand> UpStand(const std::string& name, stand::Profile profile,
                                   stand::Offloads offloads) {
  stand::StandSpec spec;
  spec.name = name;
  spec.profile = profile;
  spec.offloads = offloads;
  return UpStand(spec);
}

Result<stand::ScopedStand> UpStand(stand::StandSpec spec) {
  // NICBENCH_STAND_PREFIX (lower-case letters) keeps the stands of test runs made side by side
  // on one machine apart.
  const char* prefix = std::getenv("NICBENCH_STAND_PREFIX");
  spec.name = (prefix != nullptr ? std::string(prefix) : std::string()) + spec.name;
  return stand::ScopedStand::Create(spec);
}

Shaping ReadShaping(const stand::ScopedStand& stand, int host) {
  Shaping shaping;
  shaping.mtu = static_cast<uint32_t>(stand.info().spec.mtu);
  const stand::HostInfo& h = stand.host(host);
  auto qdisc = stand::ReadQdisc(h.netns, h.interface);
  if (!qdisc) {
    ADD_FAILURE() << "tc qdisc show on " << h.interface << ": " << qdisc.error().ToString();
    return shaping;
  }
  shaping.rate_bits_per_second = qdisc->rate_bits_per_second.value_or(0);
  shaping.overhead_bytes = static_cast<uint32_t>(qdisc->overhead_bytes.value_or(0));
  return shaping;
}

double TcpGoodputPerFrame(const Shaping& shaping) {
  const uint32_t payload = shaping.mtu - kTcpIpHeaderBytes;
  const uint32_t charged = shaping.mtu + diagnosis::kEthernetHeaderBytes + shaping.overhead_bytes;
  return diagnosis::GoodputBitsPerSecond(shaping.rate_bits_per_second, payload, charged);
}

double TcpGoodputPerGsoPacket(const Shaping& shaping, uint32_t segments) {
  // Per segment: the frame (MTU + 14) and 1/segments of the overhead. Kept in whole bytes of a
  // GSO packet so the diagnosis formula applies unchanged.
  const uint32_t payload = (shaping.mtu - kTcpIpHeaderBytes) * segments;
  const uint32_t charged =
      (shaping.mtu + diagnosis::kEthernetHeaderBytes) * segments + shaping.overhead_bytes;
  return diagnosis::GoodputBitsPerSecond(shaping.rate_bits_per_second, payload, charged);
}

double UdpDeliveredFraction(const Shaping& shaping, uint32_t payload,
                            double offered_bits_per_second) {
  const uint32_t charged =
      payload + kUdpIpHeaderBytes + diagnosis::kEthernetHeaderBytes + shaping.overhead_bytes;
  const double capacity =
      diagnosis::GoodputBitsPerSecond(shaping.rate_bits_per_second, payload, charged);
  return std::min(1.0, capacity / offered_bits_per_second);
}

std::vector<std::string> InHost(const stand::HostInfo& host, std::vector<std::string> argv) {
  std::vector<std::string> full = {"ip", "netns", "exec", host.netns};
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

std::vector<std::string> NicbenchIn(const stand::HostInfo& host, std::vector<std::string> args) {
  args.insert(args.begin(), testing::NicbenchPath());
  return InHost(host, std::move(args));
}

bool WaitForListener(const stand::HostInfo& host, int port, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const std::string filter = fmt::format("sport = :{}", port);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = testing::RunProcess(InHost(host, {"ss", "-Hltn", filter}));
    if (r.exit_code == 0 && r.out.find(fmt::format(":{}", port)) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::vector<std::string> Prioritized(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"nice", "-n", "-10"});
  return argv;
}

PairRun RunNicbenchPair(const stand::ScopedStand& stand, int server_host, int client_host,
                        std::vector<std::string> run_args) {
  PairRun out;
  const stand::HostInfo& server = stand.host(server_host);
  testing::BackgroundProcess serve(
      InHost(server, Prioritized({testing::NicbenchPath(), "serve", "-1", "-J"})));
  if (!WaitForListener(server, 5201)) {
    out.server = serve.Stop();
    ADD_FAILURE() << "nicbench serve did not listen in " << server.netns << ": " << out.server.err;
    return out;
  }
  run_args.insert(run_args.begin(), {testing::NicbenchPath(), "run", server.address, "--json"});
  out.client = Run(InHost(stand.host(client_host), Prioritized(run_args)));
  // serve -1 ends by itself after the test: wait for that end (it was given 10 s to print its
  // document and then stopped). A client that failed may have left it waiting for a test.
  out.server = out.client.exit_code == 0 ? serve.Wait(std::chrono::seconds(60)) : serve.Stop();
  EXPECT_EQ(out.client.exit_code, 0) << out.client.err;
  out.doc = ParseJson(out.client);
  auto server_doc = nlohmann::json::parse(out.server.out, nullptr, false);
  if (!server_doc.is_discarded()) out.server_doc = std::move(server_doc);
  return out;
}

TtcpRun RunTtcpPair(const stand::ScopedStand& stand, int receiver_host, int transmitter_host,
                    int buffers) {
  TtcpRun out;
  const stand::HostInfo& receiver = stand.host(receiver_host);
  testing::BackgroundProcess r(
      InHost(receiver, Prioritized({testing::NicbenchPath(), "ttcp", "-r", "-s"})));
  if (!WaitForListener(receiver, 5001)) {
    out.receiver = r.Stop();
    ADD_FAILURE() << "ttcp -r did not listen in " << receiver.netns << ": " << out.receiver.err;
    return out;
  }
  out.transmitter = Run(InHost(stand.host(transmitter_host),
                               Prioritized({testing::NicbenchPath(), "ttcp", "-t", "-s", "-n",
                                            std::to_string(buffers), receiver.address})));
  EXPECT_EQ(out.transmitter.exit_code, 0) << out.transmitter.err;
  // The receiver ends at the transmitter's EOF: wait for that end, not for a line of it.
  out.receiver = out.transmitter.exit_code == 0 ? r.Wait(std::chrono::seconds(60)) : r.Stop();
  const std::string all = out.receiver.out + out.receiver.err;
  const size_t at = all.find("ttcp-r: ");
  unsigned long long bytes = 0;
  double seconds = 0;
  size_t line = all.find(" bytes in ", at == std::string::npos ? 0 : at);
  if (line != std::string::npos) {
    size_t begin = all.rfind("ttcp-r: ", line);
    if (std::sscanf(all.c_str() + begin, "ttcp-r: %llu bytes in %lf real seconds", &bytes,
                    &seconds) != 2) {
      seconds = 0;
    }
  }
  if (seconds <= 0) {
    ADD_FAILURE() << "no 'bytes in ... real seconds' line from ttcp -r:\n" << all;
    out.bits_per_second = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  out.bytes = bytes;
  out.seconds = seconds;
  out.bits_per_second = static_cast<double>(bytes) * 8.0 / seconds;
  return out;
}

testing::ProcessResult Run(const std::vector<std::string>& argv) {
  return testing::RunProcess(argv, "", std::chrono::seconds(180));
}

nlohmann::json ParseJson(const testing::ProcessResult& result) {
  auto doc = nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    ADD_FAILURE() << "stdout is not one JSON document (exit " << result.exit_code
                  << "); stderr: " << result.err << "\nstdout: " << result.out.substr(0, 2000);
    return nullptr;
  }
  return doc;
}

double NumberAt(const nlohmann::json& doc, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!doc.is_object() || !doc.contains(p) || !doc.at(p).is_number()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return doc.at(p).get<double>();
}

std::string Mbps(double bits_per_second) {
  return fmt::format("{:.2f} Mbit/s", bits_per_second / 1e6);
}

double RelativeError(double measured, double expected) {
  return std::fabs(measured - expected) / expected;
}

}  // namespace nicbench::accuracy
