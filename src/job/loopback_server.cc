#include "job/loopback_server.h"

#include <utility>

namespace nicbench::job {

Result<std::unique_ptr<LoopbackServer>> LoopbackServer::Start() {
  engine::ServerConfig config;
  config.bind_address = "127.0.0.1";
  config.port = 0;
  config.log_tests = false;
  // Its own client is the only one: it may ask for as many streams as `run` allows.
  config.limits.max_parallel = record::kMaxParallelStreams;
  auto server = engine::Server::Create(config);
  if (!server) return tl::unexpected(server.error());
  return std::unique_ptr<LoopbackServer>(new LoopbackServer(std::move(*server)));
}

LoopbackServer::LoopbackServer(std::unique_ptr<engine::Server> server)
    : server_(std::move(server)), serving_([this] { (void)server_->Run(); }) {}

LoopbackServer::~LoopbackServer() {
  server_->RequestStop();
  serving_.join();
}

}  // namespace nicbench::job
