// The engine's server interface for the layers above, kept at this path for their includes; the
// declarations are in engine/conversation/server.h.
#pragma once

#include "engine/conversation/server.h"
