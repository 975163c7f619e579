// The client's failures in the user's terms: a broken conversation ("reading a state byte
// before EXCHANGE_RESULTS: connection closed by the peer") becomes what happened and when ("the
// server closed the connection after the test, before sending its results"); the protocol's
// own account is kept for -d/--debug. Pure; no state.
#pragma once

#include <string>

#include "base/result.h"

namespace nicbench::engine {

// How far the client's conversation had got when it failed.
enum class ClientPhase {
  kSetup,    // connecting, parameters, streams: before the data started
  kTest,     // the data moving (TEST_RUNNING until TEST_END)
  kResults,  // TEST_END sent, waiting for the results exchange and the end
};

struct UserError {
  Error error;         // the same kind, its message in the user's terms
  std::string detail;  // the protocol's account (empty when the message was already plain)
};

// A kProtocol error is reworded by its cause (the peer closed, no answer in time, a message out
// of turn) and `phase`; any other kind, and a SERVER_TERMINATE, is returned as it is.
UserError InUserTerms(const Error& error, ClientPhase phase);

}  // namespace nicbench::engine
