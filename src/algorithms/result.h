// What an algorithm run produces: one value per vertex (integer or real), optional parents, a
// summary, and what the driver needs for TEPS. Verifiers return a Verdict.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace tg {

inline constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();

struct AlgorithmResult {
  AlgorithmResult() = default;
  explicit AlgorithmResult(std::vector<int64_t> values,
                           nlohmann::json info = nlohmann::json::object())
      : ints(std::move(values)), summary(std::move(info)) {}
  explicit AlgorithmResult(std::vector<double> values,
                           nlohmann::json info = nlohmann::json::object())
      : real(true), reals(std::move(values)), summary(std::move(info)) {}
  // Values that are dense vertex ids (WCC's labels), reported as the original ids.
  static AlgorithmResult of_vertices(std::vector<int64_t> ids, nlohmann::json info) {
    AlgorithmResult r(std::move(ids), std::move(info));
    r.values_are_vertices = true;
    return r;
  }

  bool real = false;                 // values in `reals`, else in `ints`
  std::vector<int64_t> ints;         // kUnreached where a vertex was not reached
  std::vector<double> reals;         // +infinity where a vertex was not reached
  std::vector<int64_t> parents;      // BFS --parents: dense parent id, -1 if none
  bool values_are_vertices = false;  // ints hold dense vertex ids (WCC labels): report original ids
  nlohmann::json summary = nlohmann::json::object();
  uint64_t edges_traversed = 0;  // for TEPS (traversals)
};

// How far apart two real answers are: their L1 distance relative to `want`'s L1 norm (PageRank's
// ranks sum to 1, so there it is the plain L1 distance; betweenness scores grow with the graph).
// Values equal in both, infinities among them, count 0.
inline double relative_l1(std::span<const double> got, std::span<const double> want) {
  double distance = 0, norm = 0;
  for (size_t v = 0; v < got.size() && v < want.size(); ++v) {
    if (std::isfinite(want[v])) norm += std::fabs(want[v]);
    if (got[v] != want[v]) distance += std::fabs(got[v] - want[v]);
  }
  return norm > 0 ? distance / norm : distance;
}

struct Verdict {
  bool ok = true;
  std::string message;  // the first violation found
  static Verdict fail(std::string m) { return {false, std::move(m)}; }
};

}  // namespace tg
