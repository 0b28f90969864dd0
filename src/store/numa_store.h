// The NUMA tier: the far blocks live in memory bound to one NUMA node (a far socket, or a CXL
// memory expander, which Linux shows as a node without CPUs) and the engine's workers read them
// in place, with loads across the interconnect and no copy per pass (GraCXL's placement). The
// blocks are read from the graph file into the node's memory once, when the store opens, and
// checked there (ResidentStore).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/resident_store.h"

namespace tg {

// Whether this build has the numa tier (libnuma was found); without it numa_nodes() says none
// is available and NumaStore refuses, saying why.
bool numa_built();

// NUMA nodes as libnuma sees them.
struct NumaNodes {
  bool available = false;  // libnuma works (the kernel has NUMA support)
  int count = 0;           // configured nodes with memory
  int local = 0;           // the node of the CPU this thread runs on
  int farthest =
      0;  // the node with memory at the largest distance from `local` (highest id on ties)
};
NumaNodes numa_nodes();

// Frees memory from numa_alloc_onnode (which needs the size back).
struct FreeOnNode {
  uint64_t bytes = 0;
  void operator()(unsigned char* memory) const;
};

class NumaStore final : public ResidentStore {
 public:
  // Holds the blocks for which holds(block) is true, on `node`. out/in: the view's decoders
  // (for the DCSR presence index the vertex-major passes use). weights: read the weights parts.
  NumaStore(std::shared_ptr<const GraphFile> file, const std::function<bool(const BlockId&)>& holds,
            const BlockDecoder* out, const BlockDecoder* in, int node, bool weights,
            bool check_hashes);
  NumaStore(const NumaStore&) = delete;
  NumaStore& operator=(const NumaStore&) = delete;

  std::string name() const override { return "numa"; }
  int node() const { return node_; }
  uint64_t node_bytes() const { return region_bytes(); }
  // The node the page holding `address` is on (what the tests check the binding by), or -1.
  static int node_of(const void* address);

 private:
  int node_;
  std::unique_ptr<unsigned char, FreeOnNode> memory_;
};

}  // namespace tg
