// The engine's client interface for the layers above, kept at this path for their includes; the
// declarations are in engine/conversation/client.h.
#pragma once

#include "engine/conversation/client.h"
