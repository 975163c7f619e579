#include "engine/conversation/client_errors.h"

#include <cerrno>

namespace nicbench::engine {
namespace {

const char* When(ClientPhase phase) {
  switch (phase) {
    case ClientPhase::kSetup: return "while setting up the test";
    case ClientPhase::kTest: return "during the test";
    case ClientPhase::kResults: return "after the test, before sending its results";
  }
  return "";
}

bool Contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

UserError InUserTerms(const Error& error, ClientPhase phase) {
  // "the server has terminated" (SERVER_TERMINATE) already says it in iperf3's words.
  if (error.kind != ErrorKind::kProtocol || error.message == "the server has terminated") {
    return {error, ""};
  }
  const std::string detail = error.ToString();
  std::string what;
  if (Contains(detail, "closed by the peer") || error.sys_errno == ECONNRESET ||
      error.sys_errno == EPIPE) {
    what = "the server closed the connection ";
  } else if (Contains(detail, "timed out") || error.sys_errno == ETIMEDOUT) {
    what = "the server stopped answering ";
  } else {
    what = "the server said something out of turn ";
  }
  Error plain{what + When(phase), 0, error.kind};
  return {plain, detail};
}

}  // namespace nicbench::engine
