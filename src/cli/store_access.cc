#include "cli/store_access.h"

namespace nicbench::cli {

Result<std::string> StoreLocation(const std::string& flag) {
  if (!flag.empty()) return flag;
  return store::DefaultLocation();
}

Result<std::unique_ptr<store::Store>> OpenStoreFor(const std::string& flag, bool existing) {
  auto location = StoreLocation(flag);
  if (!location) return tl::unexpected(location.error());
  return store::OpenStore(*location, existing ? store::OpenMode::kExisting
                                              : store::OpenMode::kCreate);
}

}  // namespace nicbench::cli
