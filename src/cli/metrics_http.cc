// The metrics listener on cpp-httplib. Debian ships it as a shared library only (its header
// declares, libcpp-httplib.so defines), so a static nicbench links metrics_http_absent.cc
// instead (src/cli/CMakeLists.txt).
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "cli/metrics_listener.h"
#include "report/monitor_report.h"

namespace nicbench::cli {
namespace {

// The bounds the library leaves to its user (the request line and each header line are
// bounded by the library itself, at 8 KiB each, CPPHTTPLIB_*_MAX_LENGTH).
constexpr size_t kMaxHeaders = 32;
constexpr size_t kMaxBody = 1024;
constexpr size_t kWorkers = 2;
constexpr time_t kReadTimeoutSeconds = 2;
constexpr size_t kKeepAliveRequests = 10;

// Only GET (and HEAD) of the two paths, and not too many headers.
httplib::Server::HandlerResponse Screen(const httplib::Request& req, httplib::Response& res) {
  if (req.method != "GET" && req.method != "HEAD") {
    res.status = 405;
    return httplib::Server::HandlerResponse::Handled;
  }
  if (req.headers.size() > kMaxHeaders) {
    res.status = 431;
    return httplib::Server::HandlerResponse::Handled;
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

}  // namespace

struct MetricsListener::Server {
  httplib::Server http;
};

Result<std::unique_ptr<MetricsListener>> MetricsListener::Start(const ListenAddress& where) {
  std::unique_ptr<MetricsListener> l(new MetricsListener());
  l->server_ = std::make_unique<Server>();
  httplib::Server& http = l->server_->http;
  http.set_payload_max_length(kMaxBody);
  http.set_read_timeout(kReadTimeoutSeconds, 0);
  http.set_keep_alive_max_count(kKeepAliveRequests);
  http.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  http.set_pre_routing_handler(Screen);
  // The library's default sets SO_REUSEPORT as well, with which a second monitor would share
  // the port of the first without an error: SO_REUSEADDR only (a restart may take the port
  // while the old connections linger in TIME_WAIT).
  http.set_socket_options([](int sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  MetricsListener* self = l.get();
  http.Get("/metrics", [self](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(self->mutex_);
    res.set_content(self->exposition_, report::kMetricsContentType);
  });
  http.Get("/-/healthy", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("nicbench monitor is healthy\n", "text/plain");
  });
  // Port 0: one the kernel picks (tests), said on stderr by the caller.
  const int port = where.port == 0 ? http.bind_to_any_port(where.host)
                                   : (http.bind_to_port(where.host, where.port) ? where.port : -1);
  if (port <= 0) {
    return Fail(ErrorKind::kOther,
                fmt::format("--metrics-listen {}:{}: cannot listen there (in use, or not an "
                            "address of this host)",
                            where.host, where.port));
  }
  l->port_ = port;
  l->thread_ = std::thread([self] { self->server_->http.listen_after_bind(); });
  // stop() before the loop has begun is lost (the loop then never ends): the listener is
  // handed out only once it runs.
  while (!http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return l;
}

MetricsListener::~MetricsListener() {
  if (server_) server_->http.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace nicbench::cli
