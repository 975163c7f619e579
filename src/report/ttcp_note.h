// The one stderr line `ttcp --nic-note` adds after ttcp's classic lines: the interface the
// transfer used, its driver, link speed and MTU, and what the rate says about the link.
#pragma once

#include <string>

#include "record/facts.h"

namespace nicbench::report {

// "ttcp-t: note: eth0 (virtio_net, 1000 Mb/s, MTU 1500): 941 Mbits/sec is 94% of the link: the
// link is the limit" and the like, one line with its newline. `prefix` is "ttcp-t" or "ttcp-r";
// bits_per_second is what the transfer moved over its real time.
std::string RenderTtcpNote(const std::string& prefix, const record::NicFacts& nic,
                           double bits_per_second);

}  // namespace nicbench::report
