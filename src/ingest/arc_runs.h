// Sorted runs of arcs on a scratch disk: what the bounded-memory build spills when the edges do
// not fit its budget, and merges back in order.
//
// Each run is a file of fixed-size records sorted by (major, minor, weight): ids as the input
// wrote them (4 bytes each when the run's largest id fits, else 8) and, when the graph is
// weighted, the weight (4 bytes when every weight of the run is a 32-bit integer, else an
// 8-byte double). The files have no names (O_TMPFILE in the scratch folder): the kernel frees
// them when the build ends, however it ends (an error, SIGINT, SIGTERM, even SIGKILL), so no
// scratch is ever left behind. A merge reads any range of majors: each run is entered by a sparse
// index of its majors, so block rows can be read again without reading the runs before them.
// Once the build has written the arcs below a major it releases them: their disk space is
// punched out of every run, so the runs shrink as the graph file grows and the build's disk
// peak is the runs', not the runs' and the file's.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "graph/no_weight.h"

namespace tg {

// One arc: raw ids and a weight (0 when the graph is unweighted).
struct RunArc {
  uint64_t major, minor;
  double w;
};

inline bool run_arc_less(const RunArc& a, const RunArc& b) {
  if (a.major != b.major) return a.major < b.major;
  if (a.minor != b.minor) return a.minor < b.minor;
  return a.w < b.w;
}

// An arc as the spill buffer holds it: as narrow as the ids and the weights allow (8 bytes for
// 32-bit ids without weights), so a budget holds more arcs per run and sorts move fewer bytes.
template <typename Id, typename W>
struct SpillArc {
  Id major, minor;
  [[no_unique_address]] W w;
};

class ArcRuns {
 public:
  // Runs in `folder` (which must exist); `weighted` says whether records carry the weight.
  ArcRuns(std::string folder, bool weighted);
  ~ArcRuns();
  ArcRuns(const ArcRuns&) = delete;
  ArcRuns& operator=(const ArcRuns&) = delete;

  // Sorts `arcs` in place (all threads) and writes them as one more run (Id: uint32_t or
  // uint64_t; W: NoWeight or double, as the runs are weighted).
  template <typename Id, typename W>
  void add_run(std::span<SpillArc<Id, W>> arcs);

  size_t runs() const { return runs_.size(); }
  uint64_t arcs() const;
  uint64_t bytes() const;       // the records written (on the scratch disk until released)
  uint64_t disk_bytes() const;  // what the runs' files take on the disk now
  uint64_t record_bytes(uint64_t largest_id) const;  // what one arc takes there

  // Calls `take` with every arc whose major lies in [first, last], in (major, minor, weight) order
  // across all runs, in batches. Each call reads `buffer_bytes` per run at a time; calls on
  // disjoint ranges may run at once on different threads.
  void merge(uint64_t first, uint64_t last, size_t buffer_bytes,
             const std::function<void(std::span<const RunArc>)>& take) const;

  // No merge will read a major below `major` again (UINT64_MAX: none at all): frees the disk
  // blocks of the records below it (a hole punched in each run; a filesystem that cannot punch
  // keeps them until the runs are closed). A later merge of a range below it is a logic error.
  void release_below(uint64_t major);

 private:
  struct Run {
    int fd = -1;
    uint8_t id_bytes = 4;
    uint8_t weight_bytes = 0;  // 0 (unweighted), 4 (int32) or 8 (double)
    uint64_t records = 0;
    uint64_t released = 0;  // records [0, released) are no longer read
    uint64_t punched = 0;   // bytes [0, punched) are a hole (whole aligned stretches of them)
    size_t record() const { return 2 * size_t{id_bytes} + weight_bytes; }
    std::vector<uint64_t> sparse;  // the major of every kSparse-th record
  };
  class Reader;
  std::string folder_;
  bool weighted_;
  std::vector<Run> runs_;
  uint64_t released_major_ = 0;  // merges start at or above it
  bool punch_failed_ = false;    // the filesystem cannot punch holes: said once
};

}  // namespace tg
