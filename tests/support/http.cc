#include "support/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "support/wait.h"

namespace nicbench::testing {

std::string HttpGet(int port, const std::string& path, const std::string& method) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string request = method + " " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[65536];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) answer.append(buf, n);
    }
  }
  ::close(fd);
  return answer;
}

std::string Body(const std::string& answer) {
  const size_t at = answer.find("\r\n\r\n");
  return at == std::string::npos ? "" : answer.substr(at + 4);
}

int MetricsPort(BackgroundProcess& process) {
  if (!process.WaitForOutput("/metrics")) return 0;
  const std::string err = process.StderrSoFar();
  const size_t at = err.find("http://127.0.0.1:");
  return at == std::string::npos ? 0 : std::atoi(err.c_str() + at + 17);
}

std::string UrlEncoded(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

RealPrometheus::RealPrometheus(const std::string& dir, const std::vector<int>& targets)
    : web_(FreeTcpPort()) {
  std::ofstream config(dir + "/prometheus.yml");
  config << "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: nicbench\n"
            "    scrape_interval: 1s\n    static_configs:\n      - targets: [";
  for (size_t i = 0; i < targets.size(); ++i) {
    config << (i ? ", " : "") << "'127.0.0.1:" << targets[i] << "'";
  }
  config << "]\n";
  config.close();
  process_ = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{"prometheus", "--config.file=" + dir + "/prometheus.yml",
                               "--storage.tsdb.path=" + dir + "/data",
                               "--web.listen-address=127.0.0.1:" + std::to_string(web_)});
  listening_ = WaitListening(web_);
}

RealPrometheus::~RealPrometheus() { process_->Stop(); }

std::string RealPrometheus::Query(const std::string& query) const {
  return Body(HttpGet(web_, "/api/v1/query?query=" + UrlEncoded(query)));
}

}  // namespace nicbench::testing
