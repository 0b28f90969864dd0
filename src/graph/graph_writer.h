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

  // Opens a section whose size is known only once it is written (a grid's blocks): it starts
  // at the current end, takes writes anywhere at or after its start, and must be closed, with
  // its final size, before another section is added. Its bytes carry no section checksum
  // (their parts are hashed one by one in the grid's index).
  size_t open_section(format::SectionKind kind, uint32_t element_size);
  void close_section(size_t section, uint64_t bytes);
  // The section's first byte from the start of the file.
  uint64_t section_offset(size_t section) const { return sections_.at(section).offset; }
  // XXH3-64 of bytes already written, read back from the file.
  uint64_t hash_written(uint64_t file_offset, uint64_t bytes) const;

  // Computes the checksums, writes the header and renames the file into place.
  void commit(format::Header header);

  const std::string& path() const { return file_.path(); }

 private:
  AtomicFile file_;
  uint64_t end_ = format::kHeaderBytes;
  std::vector<format::SectionEntry> sections_;
  std::vector<bool> checksummed_;
  bool open_ = false;  // the last section is open
};

}  // namespace tg
