// The engine's file_io interface for the layers above, kept at this path for their includes; the
// declarations are in engine/files/file_io.h.
#pragma once

#include "engine/files/file_io.h"
