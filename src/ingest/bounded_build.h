// The build in bounded memory (issue 35): a graph file from an edge list larger than the memory
// the build may use, byte for byte the file the in-memory builder writes from the same input.
//
// Edges arrive batch by batch from the reader or the generator (EdgeBatchSink) into a buffer
// sized by the budget. A full buffer is sorted (all threads) and spilled as a run of arcs to the
// scratch folder: both arcs of an undirected edge, and for a directed graph the out-arcs and,
// once more, the in-arcs. Ids stay as the input wrote them until the runs are merged: every id
// mapping the builder uses is monotone, so their order is the dense ids' order. Then the runs
// are merged (each merge reading only the range of majors it needs, with one thread per
// stretch of it): once for the labels (label ids), once for the degrees, which fix the grid's
// ranges, and block row group by block row group for the grid itself, duplicates and self-loops
// dropped in the merge as the in-memory build drops them.
//
// Memory: the budget covers the buffer (or, later, the per-vertex degrees, the label map, a
// group's counters and gathered arcs, and the merge's read buffers); the process's own image
// (code, libraries, thread stacks) is outside it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "graph/graph_writer.h"
#include "ingest/arc_runs.h"
#include "ingest/builder.h"
#include "ingest/edge_sink.h"
#include "ingest/generate.h"
#include "util/mapped_vector.h"

namespace tg {

struct BoundedOptions {
  uint64_t memory_budget = 0;  // bytes
  std::string scratch;         // an existing folder on a disk with room for the runs
  GeneratedWeights weights = GeneratedWeights::kNone;  // convert --weights: edge k's from (seed, k)
  uint64_t weight_seed = 1;
  // What the reader or the generator holds while the edges arrive (read buffers, a generator's
  // vertex permutation and batch): the spill buffer gets the rest of the budget.
  uint64_t producer_bytes = 0;
  std::string producer = "the reader's buffers";  // what holds them, for the refusal of a budget
};

struct BoundedReport {
  uint64_t runs = 0;           // sorted runs spilled (per grid)
  uint64_t scratch_bytes = 0;  // the runs' size on the scratch disk, at its largest
  uint64_t buffer_bytes = 0;   // the spill buffer
};

// The scratch folder for an output: `scratch` when given (refused unless it is a folder), else
// the output's own folder.
std::string scratch_folder_for(const std::string& scratch, const std::string& output);

// The smallest budget the bounded build accepts.
inline constexpr uint64_t kSmallestBuildBudget = uint64_t{16} << 20;

class BoundedBuilder final : public EdgeBatchSink {
 public:
  BoundedBuilder(const BuildOptions& build, const BoundedOptions& bounded);
  ~BoundedBuilder() override;

  // Text read per round under this budget, and what the reader holds with chunks of that size
  // (its buffers count against the budget: BoundedOptions::producer_bytes).
  static size_t read_chunk_bytes(uint64_t budget);
  static uint64_t reader_bytes(uint64_t budget) { return 5 * uint64_t{read_chunk_bytes(budget)}; }

  void start(bool weighted, bool undirected_input) override;
  void add(std::span<const EdgeBatch> batches, uint64_t max_id) override;

  // After the last batch: merges the runs into the graph file; `list` describes the input
  // (what the reader or generator returned).
  BuildReport finish(const EdgeList& list, GraphWriter& writer);
  const BoundedReport& report() const { return report_; }

 private:
  template <typename Id, typename W>
  void add_as(std::span<const EdgeBatch> batches);
  template <typename Id, typename W>
  void spill_as();
  void spill();
  void refuse_a_full_disk(uint64_t bytes) const;

  BuildOptions build_;
  BoundedOptions bounded_;
  bool weighted_ = false, symmetric_ = false, started_ = false;
  bool wide_ = false;  // 64-bit ids in the buffer (from the first batch with an id beyond 32 bits)
  MappedVector<unsigned char> buffer_;  // SpillArc<Id, W>s, as wide_ and weighted_ say
  size_t held_ = 0;                     // arcs in it
  std::unique_ptr<ArcRuns> out_, in_;   // in_: the in-arcs of a directed graph
  uint64_t input_edges_ = 0, self_loops_ = 0;
  uint64_t lo_ = UINT64_MAX, hi_ = 0;  // the least and greatest id seen
  WeightInfo generated_;               // of the generated weights (convert --weights)
  BoundedReport report_;
};

}  // namespace tg
