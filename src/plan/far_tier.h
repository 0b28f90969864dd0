// The far tier a budget places edge blocks on. The planner, the store factory and the reports
// decide by this value; its names (one table) are what the user writes after --far (from Python
// far=) and what plans and reports print.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace tg {

enum class FarTier {
  kFile,    // the graph file, read with O_DIRECT through io_uring into a fetch pipeline
  kNuma,    // memory bound to a far NUMA node, read in place
  kRank,    // a far-memory MPI rank, read one-sidedly (in place when it shares this machine)
  kPaging,  // the kernel-paging baseline: every block through the file's mapping
};

inline constexpr std::array<std::pair<std::string_view, FarTier>, 4> kFarTierNames{
    {{"file", FarTier::kFile},
     {"numa", FarTier::kNuma},
     {"rank", FarTier::kRank},
     {"paging", FarTier::kPaging}}};

constexpr std::string_view far_tier_name(FarTier tier) {
  for (const auto& [name, t] : kFarTierNames)
    if (t == tier) return name;
  return "?";
}

}  // namespace tg
