#include "store/numa_store.h"

#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "graph/block_check.h"
#include "util/error.h"

namespace tg {

namespace {
constexpr uint64_t kAlign = 64;  // each block on its own cache line
}

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
  if (get_mempolicy(&node, nullptr, 0, const_cast<void*>(address), MPOL_F_NODE | MPOL_F_ADDR) != 0) return -1;
  return node;
}

uint64_t NumaStore::slot(const BlockId& b) const {
  const uint64_t p = file_->blocks_per_side();
  const bool in = b.grid == Grid::kIn && file_->directed();
  return (in ? p * p : 0) + b.major * p + b.minor;
}

NumaStore::NumaStore(std::shared_ptr<const GraphFile> file, const std::function<bool(const BlockId&)>& holds,
                     const BlockDecoder* out, const BlockDecoder* in, int node, bool weights, bool check_hashes)
    : file_(std::move(file)), node_(node) {
  if (numa_available() < 0) fail("the numa tier needs NUMA support, and this kernel has none (libnuma: numa_available failed)");
  if (node < 0 || node > numa_max_node() || numa_node_size64(node, nullptr) <= 0) {
    fail("the numa tier: node {} has no memory on this machine (nodes 0 to {})", node, numa_max_node());
  }
  weights = weights && file_->weighted();
  const uint32_t p = file_->blocks_per_side();
  const uint64_t grids = file_->directed() ? 2 : 1;
  decoders_.resize(grids * p * p);
  has_.assign(grids * p * p, 0);
  struct Held {
    BlockId block;
    uint64_t at, bytes;
  };
  std::vector<Held> held;
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file_->directed()) break;
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j) {
        if (!holds({g, i, j})) continue;
        const uint64_t bytes = file_->block_bytes(g, i, j, weights);
        held.push_back({{g, i, j}, bytes_, bytes});
        bytes_ = format::align_up(bytes_ + bytes, kAlign);
      }
  }
  held_ = held.size();
  if (bytes_ == 0) return;
  // numa_alloc_onnode maps the region with a policy binding its pages to the node (mbind).
  memory_ = static_cast<unsigned char*>(numa_alloc_onnode(bytes_, node));
  if (memory_ == nullptr) fail("the numa tier: cannot allocate {} bytes on node {}", bytes_, node);
  const int fd = ::open(file_->path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    numa_free(memory_, bytes_);
    fail("cannot open '{}' for the numa tier: {}", file_->path(), std::strerror(errno));
  }
  // Read and check the blocks in parallel; the first failure in block order is reported.
  std::vector<std::string> problems(held.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < held.size(); ++k) {
    const Held& h = held[k];
    const auto& e = file_->entry(h.block.grid, h.block.major, h.block.minor);
    unsigned char* to = memory_ + h.at;
    uint64_t done = 0;
    while (done < h.bytes) {
      const ssize_t got = ::pread(fd, to + done, h.bytes - done, static_cast<off_t>(e.offset + done));
      if (got <= 0) {
        problems[k] = fmt::format("reading {} bytes at offset {} failed: {}", h.bytes, e.offset + done,
                                  got < 0 ? std::strerror(errno) : "the file ends there");
        break;
      }
      done += static_cast<uint64_t>(got);
    }
    const auto r = file_->ranges();
    const auto& b = h.block;
    if (problems[k].empty()) {
      problems[k] = validate_block(to, h.bytes, e, file_->shape(b.major, b.minor), r[b.major], r[b.minor],
                                   check_hashes, weights);
    }
    if (!problems[k].empty()) continue;
    BlockDecoder d = BlockDecoder::at(to, e, r[b.major], r[b.minor]);
    const BlockDecoder& viewed = (b.grid == Grid::kOut ? out : in)[uint64_t{b.major} * p + b.minor];
    d.presence = viewed.presence;
    d.presence_rank = viewed.presence_rank;
    decoders_[slot(b)] = d;
    has_[slot(b)] = 1;
  }
  ::close(fd);
  for (size_t k = 0; k < held.size(); ++k) {
    if (problems[k].empty()) continue;
    numa_free(memory_, bytes_);
    memory_ = nullptr;
    const auto& b = held[k].block;
    fail("'{}': {}, placed on NUMA node {}: {}", file_->path(), file_->block_name(b.grid, b.major, b.minor), node,
         problems[k]);
  }
}

NumaStore::~NumaStore() {
  if (memory_ != nullptr) numa_free(memory_, bytes_);
}

void NumaStore::begin_pass(std::vector<PlannedBlock> plan) {
  plan_.resize(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    const uint64_t s = slot(plan[k].block);
    if (!has_[s]) {
      fail("internal: the numa store was asked for block ({}, {}) of the {} grid, which it does not hold",
           plan[k].block.major, plan[k].block.minor, grid_name(plan[k].block.grid));
    }
    plan_[k] = &decoders_[s];
  }
  blocks_ += plan.size();
}

}  // namespace tg
