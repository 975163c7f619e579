// `nicbench inspect`'s output: a host's facts and one interface's NIC facts, as text for people
// (a section per thing, "key: value" lines with the values aligned and unknowns spelled out,
// "unknown (not supported: ...)") or as one JSON document in the record types' JSON form
// (record/json.h). Pure (facts in, text out); thread-safe.
#pragma once

#include <string>
#include <vector>

#include "record/run_record.h"

namespace nicbench::report {

// "host\n  hostname:    h\n  kernel:      6.1 ...\n".
std::string RenderHostFactsText(const record::HostFacts& host);

// "interface eth0\n  driver: virtio_net\n ..." (" (loopback)" after a loopback's name).
std::string RenderNicFactsText(const record::NicFacts& nic);

// "interfaces: eth0 lo\n".
std::string RenderInterfaceListText(const std::vector<std::string>& names);

// {"host": ..., "interfaces": [...]} or {"host": ..., "nic": ...} (whichever is given), indented,
// ending with a newline.
std::string RenderFactsJson(const record::HostFacts& host,
                            const std::vector<std::string>* interfaces,
                            const record::NicFacts* nic);

// {"error": "message"} on one line.
std::string RenderFactsJsonError(const std::string& message);

}  // namespace nicbench::report
