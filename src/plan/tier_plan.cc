#include "plan/tier_plan.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <string>

#include "store/copying_store.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/option_names.h"

namespace tg {

namespace {

constexpr uint64_t kTransferAlignment = 4096;  // O_DIRECT's; the widest any tier rounds to

// The small sections a run keeps mapped and reads: ranges, both indexes, degrees, the id map.
uint64_t small_section_bytes(const GraphFile& file) {
  uint64_t total = 0;
  for (auto kind : {format::SectionKind::kRanges, format::SectionKind::kOutIndex,
                    format::SectionKind::kInIndex, format::SectionKind::kIdMap,
                    format::SectionKind::kOutDegrees, format::SectionKind::kInDegrees}) {
    if (file.has_section(kind)) total += file.section_entry(kind).bytes;
  }
  return total;
}

struct Candidate {
  uint64_t slot;
  double share;  // of passes reading the block's grid
  uint64_t bytes, arcs;
};

std::string bytes_text(uint64_t b) { return format_byte_size(b); }

// The hot classes of a plan, named: "vertex state 1 MiB, frontiers ..., result ...".
std::string hot_parts(const TierPlan& plan) {
  std::string parts = fmt::format("vertex state {}, frontiers {}, block index {}, result {}",
                                  bytes_text(plan.vertex_state), bytes_text(plan.frontiers),
                                  bytes_text(plan.index), bytes_text(plan.result));
  if (plan.communication)
    parts += fmt::format(", communication {}", bytes_text(plan.communication));
  return parts;
}

// The engine's declaration (PlanRequest::engine_holding).
EngineHolding engine_holding(const PlanRequest& r, uint64_t largest_range) {
  return r.engine_holding ? r.engine_holding(largest_range) : EngineHolding{};
}

// When a pull's slice accumulators (a range's worth a thread) are much of what the run needs, a
// finer grid is the cure: said in a refusal.
std::string grid_hint(const GraphFile& file, const PlanRequest& r, uint64_t needed) {
  const uint64_t n = file.num_vertices();
  const uint64_t pull = engine_holding(r, largest_range(file)).pull_scratch;
  const uint32_t p = file.blocks_per_side(), finer = p * 8;
  if (pull * 8 < needed || p >= 64) return "";
  const uint64_t then = engine_holding(r, (n + finer - 1) / finer).pull_scratch;
  return fmt::format(
      "; of that, a pull's accumulators take {} on this {}x{} grid (a range's worth for each of {} "
      "threads, at most every vertex), which a finer grid cuts: the graph built (or reblocked) "
      "with {} "
      "would hold them in about {}",
      bytes_text(pull), p, p, std::max<uint32_t>(r.threads, 1),
      option_with("blocks", std::to_string(finer), false), bytes_text(then));
}

}  // namespace

uint64_t largest_range(const GraphFile& file) {
  const auto ranges = file.ranges();
  uint64_t largest = 0;
  for (size_t r = 0; r + 1 < ranges.size(); ++r)
    largest = std::max(largest, ranges[r + 1] - ranges[r]);
  return largest;
}

uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t bytes =
      pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  // The limit of this process's own memory cgroup and of each cgroup above it, when lower: a v1
  // line "N:memory:/path" or the v2 line "0::/path" of /proc/self/cgroup.
  auto lower_to = [&](const std::string& file) {
    std::ifstream in(file);
    uint64_t limit = 0;  // "max" (v2, no limit) does not parse
    if (in >> limit && limit > 0) bytes = bytes ? std::min(bytes, limit) : limit;
  };
  std::ifstream cgroups("/proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    const bool v1 = controllers == "memory", v2 = controllers.empty();
    if (!v1 && !v2) continue;
    for (;;) {  // this cgroup, then each parent up to the root
      if (v1) lower_to("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
      if (v2)
        lower_to("/sys/fs/cgroup" + path + "/memory.max"),
            lower_to("/sys/fs/cgroup/unified" + path + "/memory.max");
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.rfind('/'));
    }
  }
  return bytes;
}

TierPlan plan_tiers(const GraphFile& file, const PlanRequest& r) {
  if (r.budget.has_value() == r.far_ratio.has_value())
    fail("give a memory budget or a far ratio (one of the two)");
  if (r.far_ratio && !(*r.far_ratio >= 0 && *r.far_ratio <= 1)) {
    fail("{} must be between 0 and 1, got {}", option_name("far-ratio"), *r.far_ratio);
  }
  if (r.budget && *r.budget == 0)
    fail("a memory budget of 0 bytes cannot hold anything; give a size such as 512M");
  if (r.budget && r.machine_bytes && *r.budget > r.machine_bytes) {
    fail("a memory budget of {} is more than this machine's memory ({}); give at most that",
         bytes_text(*r.budget), bytes_text(r.machine_bytes));
  }
  TierPlan plan;
  plan.budget = r.budget;
  plan.far = r.far;
  plan.p_ = file.blocks_per_side();
  plan.directed_ = file.directed();
  plan.first_row_ = 0;
  plan.end_row_ = plan.p_;
  if (r.rows) {
    if (r.rows->first >= r.rows->second || r.rows->second > plan.p_) {
      fail("block rows [{}, {}) are not rows of a grid of {} per side", r.rows->first,
           r.rows->second, plan.p_);
    }
    plan.first_row_ = r.rows->first;
    plan.end_row_ = r.rows->second;
  }
  plan.profile_source = r.profile.source;
  plan.vertex_state = r.vertex_state_bytes;
  plan.frontiers = engine_holding(r, largest_range(file)).bytes;
  plan.index = r.index_bytes + small_section_bytes(file);
  const uint64_t results = r.result_bytes * std::max<uint32_t>(r.trials, 1);
  plan.result = results - (r.result_in_state ? r.result_bytes : 0);
  plan.results_held = results;
  plan.communication = r.communication_bytes;
  const uint64_t hot = plan.minimum();

  // The blocks the algorithm's passes read, with the share of passes reading each. A pass that
  // builds lists (the triangle and gather passes) reads every block of both grids twice instead:
  // the share still ranks the blocks, the far bytes it expects are twice theirs.
  const bool builds_lists = r.passes.triangles || r.passes.gathers;
  const auto reads_per_pass = [builds_lists](double share) { return builds_lists ? 2.0 : share; };
  const double out_share =
      file.directed() ? r.passes.out_share : 1.0;  // one grid serves both directions
  const double in_share = file.directed() ? r.passes.in_share : 0.0;
  const uint32_t p = file.blocks_per_side();
  plan.far_of_.assign((file.directed() ? 2 : 1) * uint64_t{p} * p, 0);
  std::vector<Candidate> blocks;
  uint64_t largest = 0;
  // A grid the passes do not read (PageRank's out grid, SSSP's in grid) is placed far: should a
  // pass read it after all (--direction), its blocks are fetched and checked like any far block.
  bool unread_grid = false;
  uint64_t unread_bytes = 0, unread_blocks = 0;  // its blocks, should everything fit after all
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file.directed()) break;
    const double share = g == Grid::kOut ? out_share : in_share;
    if (share <= 0 && r.far != FarTier::kPaging) {
      unread_grid = true;
      for (uint32_t i = plan.first_row_; i < plan.end_row_; ++i)
        for (uint32_t j = 0; j < p; ++j) {
          plan.far_of_[plan.slot({g, i, j})] = 1;
          if (file.entry(g, i, j).edge_count == 0) continue;
          unread_bytes += file.block_bytes(g, i, j, r.weights);
          ++unread_blocks;
        }
      continue;
    }
    for (uint32_t i = plan.first_row_; i < plan.end_row_; ++i)
      for (uint32_t j = 0; j < p; ++j) {
        const auto& e = file.entry(g, i, j);
        if (e.edge_count == 0) continue;  // never planned: selective scheduling skips it
        const uint64_t bytes = file.block_bytes(g, i, j, r.weights);
        blocks.push_back({plan.slot({g, i, j}), share, bytes, e.edge_count});
        plan.edge_bytes += bytes;
        largest = std::max(largest, bytes);
      }
  }

  // The pipeline: enough buffers for every worker to hold one while the next arrives and `depth`
  // more in flight. A buffer holds a whole block up to kWholeBlockBytes (or the profile's chunk,
  // when larger): a block read whole is read in one lease, and only whole blocks can be read as
  // selections; larger blocks are leased in pieces. Requests move in chunks of the profile's size.
  plan.depth = r.profile.depth;
  plan.buffers = plan.depth + 2 * std::max<uint32_t>(r.threads, 1);
  plan.buffer_bytes = std::min(largest, std::max(kWholeBlockBytes, r.profile.chunk_bytes));
  plan.chunk_bytes = r.profile.chunk_bytes;
  // The numa tier, and a far rank on this machine, are read in place: no pipeline.
  const bool fetching = r.far == FarTier::kFile || (r.far == FarTier::kRank && !r.far_in_place);
  auto pool_of = [&](uint64_t buffer) {
    return fetching
               ? CopyingStore::pool_bytes_for(plan.buffers, plan.depth, buffer, kTransferAlignment)
               : 0;
  };

  if (r.rows) {
    plan.reasons.push_back(fmt::format(
        "an MPI rank: its passes read block rows {} to {} of {} (the ranges holding its "
        "masters), so only their blocks are placed; the budget is this rank's",
        plan.first_row_, plan.end_row_ - 1, p));
  }
  uint64_t local_target = 0;
  if (r.far == FarTier::kPaging) {
    // The kernel-paging baseline: every block is the file's mapping, and the kernel pages them
    // in and out within the process's memory limit; tiergraph places nothing.
    local_target = ~uint64_t{0};
    plan.reasons.push_back(
        "paging: every block is read through the file's mapping (MADV_RANDOM) and the kernel pages "
        "them within the memory limit of the process's cgroup (run it inside one: tiergraph does "
        "not hold this run to the budget)");
    if (r.far_ratio) {
      // Which blocks stay resident is the kernel's choice here, so a share cannot be placed; a
      // far ratio stands for a memory limit, which is what the baseline is given (a cgroup's).
      const uint64_t limit =
          hot + static_cast<uint64_t>(
                    std::floor((1.0 - *r.far_ratio) * static_cast<double>(plan.edge_bytes)));
      fail(
          "{} leaves to the kernel which edge blocks stay in memory, so {} places none: for {} on "
          "{} that ratio stands "
          "for a memory limit of {} (hot data {} and {:.0f}% of the {} of edge blocks); give {} "
          "instead and run "
          "inside a cgroup memory limit of that plus {} for the runtime",
          option_with("far", far_tier_name(FarTier::kPaging)),
          option_with("far-ratio", fmt::format("{}", *r.far_ratio), false), r.algorithm,
          file.name(), bytes_text(limit), bytes_text(hot), 100 * (1 - *r.far_ratio),
          bytes_text(plan.edge_bytes),
          option_with("memory-budget", fmt::format("{}K", format::align_up(limit, 1024) >> 10)),
          bytes_text(kFixedOverheadBytes));
    }
    if (r.budget && hot > *r.budget) {
      fail(
          "a memory budget of {} is too small: {} {} needs at least {} besides its edge blocks "
          "({}){}",
          bytes_text(*r.budget), r.algorithm, file.name(), bytes_text(hot), hot_parts(plan),
          grid_hint(file, r, hot));
    }
  } else if (r.far_ratio) {
    local_target = static_cast<uint64_t>(
        std::floor((1.0 - *r.far_ratio) * static_cast<double>(plan.edge_bytes)));
    plan.reasons.push_back(
        fmt::format("far ratio {}: at most {} of the {} of edge blocks the passes read stay local",
                    *r.far_ratio, bytes_text(local_target), bytes_text(plan.edge_bytes)));
  } else if (unread_grid &&
             *r.budget >= hot + plan.edge_bytes + unread_bytes +
                              (blocks.size() + unread_blocks) * 2 * kTransferAlignment) {
    // Every block fits, the unread grid's too: nothing is far and no pipeline is held for a grid
    // that is read only if a pass is forced to it (PageRank on a 3.6 MiB graph under 20M planned
    // a 12 MiB pipeline for its out grid).
    std::fill(plan.far_of_.begin(), plan.far_of_.end(), 0);
    unread_grid = false;
    local_target = ~uint64_t{0};
    plan.reasons.push_back(
        fmt::format("budget {}: the hot data ({}), every edge block its passes read ({}) and those "
                    "of the grid they do not read "
                    "({}) fit, so all stay local",
                    bytes_text(*r.budget), bytes_text(hot), bytes_text(plan.edge_bytes),
                    bytes_text(unread_bytes)));
  } else if (*r.budget >= hot + (unread_grid ? pool_of(plan.buffer_bytes) : 0) + plan.edge_bytes +
                              blocks.size() * 2 * kTransferAlignment) {
    local_target = *r.budget - hot - (unread_grid ? pool_of(plan.buffer_bytes) : 0);
    plan.reasons.push_back(
        fmt::format("budget {}: the hot data ({}) and every edge block ({}) fit, so all stay local",
                    bytes_text(*r.budget), bytes_text(hot), bytes_text(plan.edge_bytes)));
  } else {
    // Shrink the chunk before refusing: more requests, but the run fits.
    while (hot + pool_of(plan.buffer_bytes) > *r.budget &&
           plan.buffer_bytes > r.profile.smallest_chunk) {
      plan.buffer_bytes = std::max(r.profile.smallest_chunk, plan.buffer_bytes / 2);
    }
    const uint64_t minimum = hot + pool_of(plan.buffer_bytes);
    if (minimum > *r.budget) {
      fail(
          "a memory budget of {} is too small: {} {} needs at least {} ({}, and a fetch pipeline "
          "of {} buffers of {}); "
          "give {} or more{}",
          bytes_text(*r.budget), r.algorithm, file.name(), bytes_text(minimum), hot_parts(plan),
          plan.buffers, bytes_text(plan.buffer_bytes),
          option_with("memory-budget",
                      fmt::format("{}M", format::align_up(minimum, 1 << 20) >> 20)),
          grid_hint(file, r, minimum));
    }
    local_target = *r.budget - minimum;
    plan.reasons.push_back(
        fmt::format("budget {}: hot data {} ({}) and a pipeline of {} buffers of {} ({}) leave {} "
                    "for edge blocks",
                    bytes_text(*r.budget), bytes_text(hot), hot_parts(plan), plan.buffers,
                    bytes_text(plan.buffer_bytes), bytes_text(pool_of(plan.buffer_bytes)),
                    bytes_text(local_target)));
  }

  // Which blocks stay local: see the header.
  std::stable_sort(blocks.begin(), blocks.end(), [](const Candidate& a, const Candidate& b) {
    if (a.share != b.share) return a.share > b.share;
    const long double left = static_cast<long double>(a.arcs) / static_cast<long double>(a.bytes);
    const long double right = static_cast<long double>(b.arcs) / static_cast<long double>(b.bytes);
    if (left != right) return left > right;  // arcs per byte
    return a.slot < b.slot;
  });
  // Under a budget a local block is held as the mapped file's pages, so it costs its bytes and,
  // at most, two pages it shares with its neighbours; a far ratio counts bytes.
  const uint64_t page_slack = r.budget ? 2 * kTransferAlignment : 0;
  uint64_t local_cost = 0;
  for (const auto& b : blocks) {
    const uint64_t cost = b.bytes + page_slack;
    if (local_target == ~uint64_t{0} || local_cost + cost <= local_target) {
      local_cost += cost;
      plan.local_bytes += b.bytes;
      ++plan.local_blocks;
    } else {
      plan.far_of_[b.slot] = 1;
      plan.far_bytes += b.bytes;
      ++plan.far_blocks;
      plan.expected_far_bytes_per_pass += reads_per_pass(b.share) * static_cast<double>(b.bytes);
    }
  }
  plan.far_ratio = plan.edge_bytes
                       ? static_cast<double>(plan.far_bytes) / static_cast<double>(plan.edge_bytes)
                       : 0.0;
  if (plan.any_far() || unread_grid) plan.pool = pool_of(plan.buffer_bytes);
  if (unread_grid) {
    plan.reasons.push_back(
        fmt::format("{} does not read the {} grid: its blocks are placed far, fetched only if a "
                    "pass reads them",
                    r.algorithm, out_share > 0 ? "in" : "out"));
  }
  if (plan.any_far()) {
    if (builds_lists) {
      plan.reasons.push_back(fmt::format(
          "{} builds its lists from {} in one pass, reading each block twice (to count, to fill), "
          "then reads no block again: its blocks are ranked dense first",
          r.algorithm, file.directed() ? "both grids" : "the graph's one grid (undirected)"));
    } else if (out_share > 0 && in_share > 0 && file.directed()) {
      plan.reasons.push_back(fmt::format(
          "{} switches between push and pull: both grids are ranked alike, dense blocks first",
          r.algorithm));
    } else {
      plan.reasons.push_back(fmt::format("{} reads {}: its blocks are ranked dense first",
                                         r.algorithm,
                                         !file.directed() ? "the graph's one grid (undirected)"
                                         : out_share > 0  ? "the out grid (push)"
                                                          : "the in grid (pull)"));
    }
    plan.reasons.push_back(fmt::format(
        "{} of {} blocks local ({}), {} far on the {} tier ({}): far ratio {:.3f}",
        plan.local_blocks, plan.local_blocks + plan.far_blocks, bytes_text(plan.local_bytes),
        plan.far_blocks, far_tier_name(r.far), bytes_text(plan.far_bytes), plan.far_ratio));
    plan.reasons.push_back(fmt::format(
        "a pass is expected to read {} from the far tier ({})",
        bytes_text(static_cast<uint64_t>(plan.expected_far_bytes_per_pass)),
        builds_lists ? "every far block twice"
                     : "far blocks weighted by the share of passes reading their grid"));
    if (fetching) {
      plan.reasons.push_back(fmt::format(
          "pipeline: {} buffers of {}, {} requests in flight, read in chunks of {} ({} profile)",
          plan.buffers, bytes_text(plan.buffer_bytes), plan.depth, bytes_text(plan.chunk_bytes),
          plan.profile_source));
    } else if (r.far == FarTier::kRank) {
      plan.reasons.push_back(
          "rank: the far-memory rank shares this machine, so its window is shared memory that "
          "every "
          "pass reads in place (no pipeline; --far-rank-copy copies with MPI_Rget as from another "
          "machine)");
    } else {
      plan.reasons.push_back(
          "numa: the far blocks are read once into the far node's memory and read there in place "
          "by every pass (no pipeline)");
    }
  }
  if (!fetching || (!plan.any_far() && !unread_grid)) {
    plan.buffers = plan.depth = 0;
    plan.buffer_bytes = plan.chunk_bytes = 0;
    if (!plan.any_far()) plan.reasons.push_back("every block is local: no fetch pipeline");
  }
  return plan;
}

nlohmann::json TierPlan::to_json() const {
  nlohmann::json j{{"far", far_tier_name(far)},
                   {"minimum_bytes", minimum()},
                   {"memory",
                    {{"vertex_state", vertex_state},
                     {"frontiers", frontiers},
                     {"index", index},
                     {"result", result},
                     {"pool", pool},
                     {"communication", communication}}},
                   {"rows", {first_row_, end_row_}},
                   {"overhead_bytes", kFixedOverheadBytes},
                   {"edge_bytes", edge_bytes},
                   {"local_bytes", local_bytes},
                   {"far_bytes", far_bytes},
                   {"local_blocks", local_blocks},
                   {"far_blocks", far_blocks},
                   {"far_ratio", far_ratio},
                   {"buffers", buffers},
                   {"buffer_bytes", buffer_bytes},
                   {"depth", depth},
                   {"chunk_bytes", chunk_bytes},
                   {"expected_far_bytes_per_pass", expected_far_bytes_per_pass},
                   {"profile", profile_source},
                   {"reasons", reasons}};
  j["budget_bytes"] = budget ? nlohmann::json(*budget) : nlohmann::json(nullptr);
  return j;
}

std::string TierPlan::describe() const {
  std::string out;
  for (const auto& line : reasons) out += "- " + line + "\n";
  if (far == FarTier::kPaging)
    return out + fmt::format(
                     "local memory: {} hot; the kernel keeps what fits of the {} of edge blocks\n",
                     format_byte_size(minimum()), format_byte_size(edge_bytes));
  out += fmt::format(
      "local memory: {} hot + {} edge blocks + {} pipeline = {}{}\n",
      format_byte_size(minimum() - pool), format_byte_size(local_bytes), format_byte_size(pool),
      format_byte_size(minimum() + local_bytes),
      budget ? fmt::format(" (budget {}, plus at most {} for the runtime)",
                           format_byte_size(*budget), format_byte_size(kFixedOverheadBytes))
             : std::string());
  return out;
}

}  // namespace tg
