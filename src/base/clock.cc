#include "base/clock.h"

namespace nicbench {

const SteadyClock& SteadyClock::Instance() {
  static const SteadyClock clock;
  return clock;
}

}  // namespace nicbench
