// The loopback job's server (`nicbench run` with no HOST, or --loopback): a nicbench server in
// the job's own process, on 127.0.0.1 and a port the kernel picks, served by one thread of its
// own. Internal to the job layer (job/run_job.h); Start and the destructor from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <thread>

#include "base/result.h"
#include "engine/server.h"

namespace nicbench::job {

class LoopbackServer {
 public:
  // Binds 127.0.0.1:0 and starts serving; an error when the socket cannot be had.
  static Result<std::unique_ptr<LoopbackServer>> Start();
  // Stops the server and waits for its thread.
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  const char* host() const { return "127.0.0.1"; }
  uint16_t port() const { return server_->port(); }

 private:
  explicit LoopbackServer(std::unique_ptr<engine::Server> server);

  std::unique_ptr<engine::Server> server_;
  std::thread serving_;
};

}  // namespace nicbench::job
