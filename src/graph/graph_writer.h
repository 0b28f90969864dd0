// Writes a graph file safely: everything goes to a temporary file beside the destination, which
// is renamed over the destination only when the file is complete, so a failed or interrupted
// conversion leaves nothing behind and an existing good file is never half-overwritten.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/format.h"
#include "util/atomic_file.h"

namespace tg {

class GraphWriter {
 public:
  // Refuses (tg::Error) an output in a missing directory or an output that is one of `inputs`.
  GraphWriter(std::string path, const std::vector<std::string>& inputs);
  GraphWriter(const GraphWriter&) = delete;
  GraphWriter& operator=(const GraphWriter&) = delete;

  // Reserves a section of `bytes` bytes and returns its index; its contents are then written with
  // write() at byte positions relative to the section start, from any thread.
  size_t add_section(format::SectionKind kind, uint32_t element_size, uint64_t bytes);
  void write(size_t section, uint64_t position, const void* data, size_t bytes);
  template <typename T, size_t N>
  void write_all(size_t section, std::span<T, N> items) {
    write(section, 0, items.data(), items.size_bytes());
  }

  // Computes the checksums, writes the header and renames the file into place.
  void commit(format::Header header);

  const std::string& path() const { return file_.path(); }

 private:
  AtomicFile file_;
  uint64_t end_ = format::kHeaderBytes;
  std::vector<format::SectionEntry> sections_;
};

}  // namespace tg
