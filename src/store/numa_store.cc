#include "store/numa_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#if TG_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"
#include "util/read_at.h"

namespace tg {
#if TG_HAVE_NUMA

bool numa_built() { return true; }

namespace {

// The blocks `holds` names, laid out one after another, each on its own cache line.
std::vector<ResidentStore::Placed> lay_out(const GraphFile& file,
                                           const std::function<bool(const BlockId&)>& holds,
                                           bool weights, uint64_t& total_bytes) {
  constexpr uint64_t kAlign = 64;
  std::vector<ResidentStore::Placed> placed;
  total_bytes = 0;
  const uint32_t p = file.blocks_per_side();
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file.directed()) break;
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j) {
        if (!holds(BlockId{g, i, j})) continue;
        const uint64_t bytes = file.block_bytes(g, i, j, weights);
        placed.push_back({{g, i, j}, total_bytes, bytes});
        total_bytes = format::align_up(total_bytes + bytes, kAlign);
      }
  }
  return placed;
}

}  // namespace

NumaNodes numa_nodes() {
  NumaNodes n;
  if (numa_available() < 0) return n;
  n.available = true;
  const int cpu = sched_getcpu();
  n.local = cpu >= 0 ? std::max(0, numa_node_of_cpu(cpu)) : 0;
  n.farthest = n.local;
  int best = -1;
  for (int node = 0; node <= numa_max_node(); ++node) {
    long long free_bytes = 0;
    if (numa_node_size64(node, &free_bytes) <= 0) continue;  // no memory (or not configured)
    ++n.count;
    const int distance = numa_distance(n.local, node);
    if (distance >= best) best = distance, n.farthest = node;
  }
  return n;
}

int NumaStore::node_of(const void* address) {
  int node = -1;
  if (get_mempolicy(&node, nullptr, 0, const_cast<void*>(address), MPOL_F_NODE | MPOL_F_ADDR) != 0)
    return -1;
  return node;
}

void FreeOnNode::operator()(unsigned char* memory) const { numa_free(memory, bytes); }

NumaStore::NumaStore(std::shared_ptr<const GraphFile> file,
                     const std::function<bool(const BlockId&)>& holds, const BlockDecoder* out,
                     const BlockDecoder* in, int node, bool weights, bool check_hashes)
    : ResidentStore(std::move(file)), node_(node) {
  if (numa_available() < 0)
    fail(
        "the numa tier needs NUMA support, and this kernel has none (libnuma: numa_available "
        "failed)");
  if (node < 0 || node > numa_max_node() || numa_node_size64(node, nullptr) <= 0) {
    fail("the numa tier: node {} has no memory on this machine (nodes 0 to {})", node,
         numa_max_node());
  }
  weights = weights && this->file().weighted();
  uint64_t bytes = 0;
  const std::vector<Placed> placed = lay_out(this->file(), holds, weights, bytes);
  if (bytes == 0) return;  // nothing to hold
  // numa_alloc_onnode maps the region with a policy binding its pages to the node (mbind).
  memory_ = std::unique_ptr<unsigned char, FreeOnNode>(
      static_cast<unsigned char*>(numa_alloc_onnode(bytes, node)), FreeOnNode{bytes});
  if (!memory_) fail("the numa tier: cannot allocate {} bytes on node {}", bytes, node);
  const std::string& path = this->file().path();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open '{}' for the numa tier: {}", path, std::strerror(errno));
  // Read in parallel; the first failure in block order is reported.
  std::vector<std::string> problems(placed.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < placed.size(); ++k) {
    const Placed& h = placed[k];
    const uint64_t offset = this->file().entry(h.block.grid, h.block.major, h.block.minor).offset;
    if (const auto failed = read_at(fd, memory_.get() + h.at, h.bytes, offset)) {
      problems[k] = fmt::format("reading {} bytes at offset {} failed: {}", h.bytes, failed->offset,
                                failed->reason);
    }
  }
  ::close(fd);
  for (size_t k = 0; k < placed.size(); ++k) {
    if (problems[k].empty()) continue;
    const BlockId& b = placed[k].block;
    fail("'{}': {}, placed on NUMA node {}: {}", path,
         this->file().block_name(b.grid, b.major, b.minor), node, problems[k]);
  }
  hold(memory_.get(), bytes, placed, out, in, weights, check_hashes,
       fmt::format("placed on NUMA node {}", node));
}

#else  // built without libnuma: no node is known, and the numa tier is refused

bool numa_built() { return false; }
NumaNodes numa_nodes() { return {}; }
int NumaStore::node_of(const void*) { return -1; }
void FreeOnNode::operator()(unsigned char*) const {}
NumaStore::NumaStore(std::shared_ptr<const GraphFile> file,
                     const std::function<bool(const BlockId&)>&, const BlockDecoder*,
                     const BlockDecoder*, int node, bool, bool)
    : ResidentStore(std::move(file)), node_(node) {
  fail(
      "the numa tier binds memory to a node with libnuma, and this build of tiergraph has none "
      "(libnuma was not found when it was built: install libnuma-dev, as scripts/setup.sh does, "
      "and build again)");
}

#endif
}  // namespace tg
