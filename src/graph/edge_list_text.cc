#include "graph/edge_list_text.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/atomic_file.h"

namespace tg {

void write_edge_list_text(const EdgeList& list, const std::string& path) {
  AtomicFile out(path);
  std::visit(
      [&]<typename Id, typename W>(const EdgeArray<Id, W>& edges) {
        constexpr size_t kBatch = size_t{1} << 20;
        for (size_t start = 0; start < edges.size(); start += kBatch * 8) {
          const size_t stop = std::min(edges.size(), start + kBatch * 8);
          std::vector<std::string> parts((stop - start + kBatch - 1) / kBatch);
#pragma omp parallel for schedule(dynamic, 1)
          for (size_t k = 0; k < parts.size(); ++k) {
            fmt::memory_buffer text;
            for (size_t i = start + k * kBatch; i < std::min(stop, start + (k + 1) * kBatch); ++i) {
              if constexpr (std::is_same_v<W, double>) {
                fmt::format_to(std::back_inserter(text), "{} {} {}\n", edges[i].u, edges[i].v, edges[i].w);
              } else {
                fmt::format_to(std::back_inserter(text), "{} {}\n", edges[i].u, edges[i].v);
              }
            }
            parts[k] = fmt::to_string(text);
          }
          for (const auto& part : parts) out.write(part.data(), part.size());
        }
      },
      list.edges);
  out.commit();
}

}  // namespace tg
