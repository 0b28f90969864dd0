#include "graph/edge_list_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/error.h"

namespace tg {

void write_edge_list_text(const EdgeList& list, const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    fail("cannot write '{}': directory '{}' does not exist", path, parent.string());
  }
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) fail("cannot create a temporary file beside '{}': {}", path, std::strerror(errno));
  auto write_out = [&](const std::string& s) {
    size_t at = 0;
    while (at < s.size()) {
      const ssize_t n = ::write(fd, s.data() + at, s.size() - at);
      if (n < 0) {
        const int err = errno;
        close(fd);
        unlink(temp.c_str());
        fail("writing '{}' failed: {}", path, std::strerror(err));
      }
      at += static_cast<size_t>(n);
    }
  };
  std::visit(
      [&]<typename Id, typename W>(const EdgeArray<Id, W>& edges) {
        constexpr size_t kBatch = size_t{1} << 20;
        for (size_t start = 0; start < edges.size(); start += kBatch * 8) {
          const size_t stop = std::min(edges.size(), start + kBatch * 8);
          std::vector<std::string> parts((stop - start + kBatch - 1) / kBatch);
#pragma omp parallel for schedule(dynamic, 1)
          for (size_t k = 0; k < parts.size(); ++k) {
            fmt::memory_buffer out;
            for (size_t i = start + k * kBatch; i < std::min(stop, start + (k + 1) * kBatch); ++i) {
              if constexpr (std::is_same_v<W, double>) {
                fmt::format_to(std::back_inserter(out), "{} {} {}\n", edges[i].u, edges[i].v, edges[i].w);
              } else {
                fmt::format_to(std::back_inserter(out), "{} {}\n", edges[i].u, edges[i].v);
              }
            }
            parts[k] = fmt::to_string(out);
          }
          for (const auto& part : parts) write_out(part);
        }
      },
      list.edges);
  if (fchmod(fd, 0644) != 0 || close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    fail("writing '{}' failed: {}", path, std::strerror(err));
  }
}

}  // namespace tg
