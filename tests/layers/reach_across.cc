// Must not compile: nicbench_record does not link nicbench_engine, so engine's headers are not
// on its include path (tests/CMakeLists.txt, LayerFence). The record header compiles, proving
// the include path itself works.
#include "engine/client.h"
#include "record/run_record.h"

int LayerFenceProbe() { return sizeof(nicbench::record::RunRecord) > 0 ? 0 : 1; }
