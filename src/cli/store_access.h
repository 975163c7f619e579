// Opening the result store for the commands that read it (compare, matrix): --store PATH|URL,
// else store::DefaultLocation().
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "store/store.h"

namespace nicbench::cli {

// The location: `flag` (the --store value) or the default.
Result<std::string> StoreLocation(const std::string& flag);

// `flag` is the --store value, empty when not given. The store must exist when `existing`.
Result<std::unique_ptr<store::Store>> OpenStoreFor(const std::string& flag, bool existing);
inline Result<std::unique_ptr<store::Store>> OpenForReading(const std::string& flag) {
  return OpenStoreFor(flag, true);
}

}  // namespace nicbench::cli
