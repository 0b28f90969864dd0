#pragma once

#include <cstdint>
#include <string>

namespace tg {

struct BoundedOptions;

// Rewrites graph file `input` as `output` with a P x P block grid; everything else carries over.
// Returns the side of the grid written: P, or fewer when the vertices make fewer ranges of 64.
// With `bounded`, in bounded memory (bounded_build.h; a version-1 file is always read whole).
uint32_t reblock_graph(const std::string& input, const std::string& output, uint32_t blocks,
                       bool overwrite, const BoundedOptions* bounded = nullptr);

}  // namespace tg
