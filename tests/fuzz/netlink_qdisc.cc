// rtnetlink tc dump replies (probes/tc_dump.h): the input is the bytes of one recv(2), read as
// `nicbench inspect` reads the root qdisc of interface 1 and the rates of its htb classes.
#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "probes/tc_dump.h"

namespace internal = nicbench::probes::internal;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // recv(2) writes into a buffer aligned for struct nlmsghdr; so does this copy.
  std::vector<uint32_t> aligned((size + 3) / 4);
  if (size > 0) std::memcpy(aligned.data(), data, size);
  const char* bytes = reinterpret_cast<const char*>(aligned.data());
  bool found = false;
  nicbench::record::Qdisc root;
  (void)internal::WalkTcDump(bytes, size, 1,
                             [&](const struct tcmsg& tc, const struct rtattr* a, int len) {
                               if (!found) found = internal::RootQdiscFromMessage(tc, a, len, root);
                               (void)internal::HtbClassRate(a, len);
                             });
  return 0;
}
