// The monitor_events table (schema version 6, docs/store.md): a monitor's events written and
// read back. Internal to the store layer; used by SqlStore on its connection.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "record/monitor.h"
#include "store/sql.h"

namespace nicbench::store {

Result<int64_t> InsertEvent(Connection& c, const record::MonitorEvent& event);
Result<std::vector<record::MonitorEvent>> SelectEvents(Connection& c, std::string_view monitor);

}  // namespace nicbench::store
