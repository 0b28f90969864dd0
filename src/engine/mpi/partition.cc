#include "engine/mpi/partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "graph/graph_view.h"
#include "util/error.h"

namespace tg {

namespace {
constexpr uint64_t kAlign = 64;  // a frontier bitmap word
}

double Partition::imbalance() const {
  double total = 0, most = 0;
  for (const auto& r : ranks) {
    total += r.load;
    most = std::max(most, r.load);
  }
  return total > 0 ? most / (total / static_cast<double>(ranks.size())) : 1.0;
}

Partition partition_vertices(const GraphFile& file, uint32_t ranks, double alpha) {
  if (ranks < 1) fail("--ranks must be at least 1, got {}", ranks);
  if (!(alpha >= 0)) fail("--partition-alpha must not be negative, got {}", alpha);
  const uint64_t n = file.num_vertices();
  Partition p;
  p.alpha = alpha;
  p.ranks.resize(ranks);
  const double total = alpha * static_cast<double>(n) + static_cast<double>(file.num_arcs());
  // Walk the vertices once, closing rank r's range at the first 64-aligned vertex where the
  // load so far reaches (r + 1) / ranks of the total (the last rank takes the rest).
  uint64_t v = 0;
  double so_far = 0;
  for (uint32_t r = 0; r < ranks; ++r) {
    RankShare& share = p.ranks[r];
    share.first = v;
    const double goal = total * static_cast<double>(r + 1) / static_cast<double>(ranks);
    while (v < n && (r + 1 == ranks || so_far < goal || v % kAlign != 0)) {
      const uint64_t d = file.out_degree(v);
      share.arcs += d;
      so_far += alpha + static_cast<double>(d);
      ++v;
    }
    share.end = v;
    share.load = alpha * static_cast<double>(share.vertices()) + static_cast<double>(share.arcs);
  }
  return p;
}

void count_cut_arcs(std::shared_ptr<const GraphFile> file, Partition& p) {
  const uint64_t n = file->num_vertices();
  const size_t ranks = p.ranks.size();
  std::vector<uint64_t> bounds;  // rank r masters [bounds[r], bounds[r + 1])
  bounds.reserve(ranks + 1);
  for (const auto& r : p.ranks) bounds.push_back(r.first);
  bounds.push_back(n);
  auto owner = [&](uint64_t v) {
    return static_cast<size_t>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, v) -
                               bounds.begin() - 1);
  };
  // One bitmap of remote vertices per rank: n/8 bytes each.
  const uint64_t words = (n + 63) / 64;
  if (ranks * words * 8 > (uint64_t{4} << 30)) {
    fail("counting mirrors for {} ranks of {} vertices would need {} GiB; ask for fewer ranks",
         ranks, n, ranks * words * 8 >> 30);
  }
  std::vector<std::vector<uint64_t>> remote(ranks, std::vector<uint64_t>(words, 0));
  with_unweighted_view(std::move(file), [&](const auto& view) {
    view.for_each_arc([&](uint64_t u, uint64_t v, auto) {
      const size_t ru = owner(u), rv = owner(v);
      if (ru == rv) return;
      // Rank ru pushes along (u, v) to a mirror of v; rank rv pulls along it from a mirror of u.
      ++p.ranks[ru].cut_arcs;
      ++p.ranks[rv].cut_arcs;
      remote[ru][v / 64] |= uint64_t{1} << (v % 64);
      remote[rv][u / 64] |= uint64_t{1} << (u % 64);
    });
  });
  for (size_t r = 0; r < ranks; ++r) {
    uint64_t count = 0;
    for (uint64_t w : remote[r]) count += static_cast<uint64_t>(std::popcount(w));
    p.ranks[r].mirrors = count;
  }
}

nlohmann::json Partition::to_json() const {
  nlohmann::json rs = nlohmann::json::array();
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto& s = ranks[r];
    rs.push_back({{"rank", r},
                  {"first", s.first},
                  {"end", s.end},
                  {"vertices", s.vertices()},
                  {"arcs", s.arcs},
                  {"load", s.load},
                  {"cut_arcs", s.cut_arcs},
                  {"mirrors", s.mirrors}});
  }
  return {{"alpha", alpha}, {"imbalance", imbalance()}, {"ranks", rs}};
}

std::string Partition::describe() const {
  std::string out = fmt::format(
      "Partition into {} ranks (alpha {}: load = alpha * vertices + out-arcs; imbalance {:.3f})\n",
      ranks.size(), alpha, imbalance());
  out += fmt::format("  {:>4}  {:>23}  {:>12}  {:>13}  {:>13}  {:>12}\n", "rank", "masters",
                     "vertices", "out-arcs", "cut arcs", "mirrors");
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto& s = ranks[r];
    out += fmt::format("  {:>4}  {:>23}  {:>12}  {:>13}  {:>13}  {:>12}\n", r,
                       fmt::format("[{}, {})", s.first, s.end), s.vertices(), s.arcs, s.cut_arcs,
                       s.mirrors);
  }
  return out;
}

}  // namespace tg
