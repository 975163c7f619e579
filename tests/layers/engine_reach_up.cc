// Must not compile: nicbench_engine_datapath does not link the conversations, so their headers
// are not on its include path (tests/CMakeLists.txt, LayerFence). The data path's own header
// compiles, proving the include path itself works.
#include "engine/conversation/client.h"
#include "engine/datapath/data_path.h"

int EngineReachUp() { return sizeof(nicbench::engine::FlowCounters) > 0 ? 0 : 1; }
