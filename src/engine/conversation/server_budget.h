// The server's budgets, shared by all its tests: memory for the tests' buffers (--max-memory)
// and descriptors (the process limit, less a reserve). A test reserves what its parameters need
// before anything is allocated or accepted for it, and gives it back when it ends, so one
// hostile request is refused instead of taking what every other test needs. See
// docs/protocol.md ("Budgets").
//
// Thread safety: ResourceBudget locks; every method may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>

#include "record/test_spec.h"

namespace nicbench::engine {

class ResourceBudget {
 public:
  void set_limit(uint64_t limit);
  // Reserves `amount` if it fits in what is left; false (nothing reserved) otherwise.
  bool TryReserve(uint64_t amount);
  void Release(uint64_t amount);
  uint64_t in_use() const;
  uint64_t limit() const;

 private:
  mutable std::mutex mutex_;
  uint64_t limit_ = 0;
  uint64_t in_use_ = 0;
};

// The buffers the server's end of `spec` allocates on `workers` DataPath threads: one shared
// payload for its TCP senders (with zero-copy, one per worker that has a sender, each with its
// memfd copy for sendfile), one block per worker for its TCP receivers (flow_payload.h,
// WorkerBuffers), one batch of datagrams per UDP sender and receiver (engine/flow_udp.h).
uint64_t TestBufferBytes(const record::TestSpec& spec, int workers);

// The descriptors the server's end of `spec` holds at most: control, its streams (and the UDP
// set-up socket), the event and timer fds of its loop and of `workers` DataPath workers, and
// the /proc files its host observer reads.
uint64_t TestDescriptors(const record::TestSpec& spec, int workers);

}  // namespace nicbench::engine
