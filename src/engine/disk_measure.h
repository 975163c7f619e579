// The engine's disk_measure interface for the layers above, kept at this path for their includes;
// the declarations are in engine/files/disk_measure.h.
#pragma once

#include "engine/files/disk_measure.h"
