// The interface of this machine's (or a captured tree's) default IPv4 route, which `collect`
// and `inspect` describe when no interface is named.
#pragma once

#include <string>

#include "probes/file_source.h"

namespace nicbench::cli {

// The interface of the default IPv4 route (/proc/net/route: Destination 00000000), as
// collect.sh finds it; "" when there is none (or the file cannot be read).
std::string DefaultRouteInterface(probes::FileSource& files);

}  // namespace nicbench::cli
