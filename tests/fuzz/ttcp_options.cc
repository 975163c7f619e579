// Classic ttcp's command line (ttcp/options.h), parsed with getopt as the original did. The input
// is argv after the program name, arguments separated by NUL bytes.
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "ttcp/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = {"ttcp"};
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (!current.empty()) args.push_back(std::move(current));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  auto parsed = nicbench::ttcp::ParseTtcpArgs(static_cast<int>(args.size()), argv.data());
  if (parsed) {
    NICBENCH_FUZZ_CHECK(parsed->buflen >= 1 && parsed->port >= 1 && parsed->port <= 65535);
    NICBENCH_FUZZ_CHECK(!parsed->transmit || !parsed->host.empty() || args.size() > 1);
  } else {
    NICBENCH_FUZZ_CHECK(parsed.error().show_usage || !parsed.error().message.empty());
  }
  return 0;
}
