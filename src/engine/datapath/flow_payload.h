// The payload a sender repeats: filled once at flow creation, as iperf3 does (spec section 8),
// so the hot loop never touches it. Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "base/result.h"
#include "engine/files/aligned_buffer.h"
#include "engine/files/payload_bytes.h"
#include "net/unique_fd.h"

namespace nicbench::engine {

// A file holding `block`, for sendfile(2): the zero-copy source iperf3 -Z gets from a temp file.
// It is an unnamed file (O_TMPFILE) in the first of `dirs` on a page-cache filesystem (not
// tmpfs or ramfs), else a memfd. The page cache is the cheaper source: sendfile takes its
// pages in batches (filemap_splice_read), where from tmpfs or a memfd it looks each page up,
// locks and unlocks it (shmem_file_splice_read, Linux 6.x), which cost `-Z` senders a tenth of
// their CPU (docs/engine.md, "Zero-copy with several streams"). Its pages may be written back
// to that filesystem (one block per sending worker) and, under memory pressure, read back
// from it, as iperf3's temp file's are.
Result<net::UniqueFd> MakeBlockFile(std::span<const uint8_t> block,
                                    const std::vector<std::string>& dirs);
// Where MakeBlockFile looks: $TMPDIR (as iperf3), /var/tmp, /tmp.
std::vector<std::string> PayloadFileDirs();
// True when `fd` is on a page-cache filesystem (for tests).
bool OnPageCacheFs(int fd);

// What a TCP sender repeats. Read-only once made, so every sending stream of a test shares one:
// 128 streams of 16 MiB blocks cost 16 MiB, not 2 GiB (a hostile `-R -P 128 -l 16M` that never
// reads made a server hold one block per stream).
struct Payload {
  AlignedBytes block;   // page-aligned: see aligned_buffer.h
  net::UniqueFd memfd;  // a file copy of `block` for sendfile(2) (MakeBlockFile), else empty
};

// The payloads of one test (owned by its DataPath), one per (length, fill, memfd) asked for.
// Thread safety: Get from the controller thread only (flows are made before the workers start).
class PayloadCache {
 public:
  Result<std::shared_ptr<const Payload>> Get(uint32_t bytes, bool repeating, bool with_memfd);

 private:
  std::map<std::tuple<uint32_t, bool, bool>, std::shared_ptr<const Payload>> payloads_;
};

// The buffers the flows of one worker thread share. A worker runs its flows one at a time, so
// one receive buffer serves every receiver on it (1,000 receivers of 128 KiB blocks cost one
// block per thread, not 125 MiB). Zero-copy senders get a payload per worker: sendfile(2)
// splices the payload file's pages into the socket, taking a reference on each (and from a
// memfd locking its folio: a sleeping lock, in shmem_file_splice_read, Linux 6.x); MSG_ZEROCOPY
// pins the block's pages. Two threads doing that to the same pages at once queue on those locks and
// bounce the reference counts between CPUs, so with one memfd for the whole test `-P 2 -Z`
// moved less than one stream (docs/engine.md, "Zero-copy with several streams"). Worker 0
// keeps the test's payload; each further worker makes a copy.
//
// Thread safety: Reserve*/ZeroCopyPayload on the controller thread before the worker starts;
// receive_buffer() on the worker's thread after.
class WorkerBuffers {
 public:
  // `test_payloads` serves worker 0 (no copy); REQUIRES: outlives this object.
  WorkerBuffers(int worker_index, PayloadCache* test_payloads)
      : own_payloads_(worker_index > 0), test_payloads_(test_payloads) {}

  // Grows the shared receive buffer to at least `bytes`.
  Status ReserveReceive(size_t bytes);
  uint8_t* receive_buffer() const { return receive_.get(); }
  size_t receive_bytes() const { return receive_bytes_; }

  // The payload a zero-copy sender on this worker sends from (see above).
  Result<std::shared_ptr<const Payload>> ZeroCopyPayload(uint32_t bytes, bool repeating,
                                                         bool with_memfd);

 private:
  const bool own_payloads_;
  PayloadCache* const test_payloads_;
  PayloadCache payloads_;
  AlignedBuffer receive_;  // page-aligned: see aligned_buffer.h
  size_t receive_bytes_ = 0;
};

}  // namespace nicbench::engine
