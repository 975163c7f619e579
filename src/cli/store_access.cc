#include "cli/store_access.h"

namespace nicbench::cli {

Result<std::unique_ptr<store::Store>> OpenStoreFor(const std::string& flag, bool existing) {
  std::string location = flag;
  if (location.empty()) {
    auto fallback = store::DefaultLocation();
    if (!fallback) return tl::unexpected(fallback.error());
    location = *fallback;
  }
  return store::OpenStore(location, existing ? store::OpenMode::kExisting
                                             : store::OpenMode::kCreate);
}

}  // namespace nicbench::cli
