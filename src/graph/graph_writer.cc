#include "graph/graph_writer.h"

#include <sys/stat.h>
#include <xxhash.h>

#include <cstring>

#include "graph/checksum.h"
#include "util/error.h"

namespace tg {

namespace {
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void check_not_input(const std::string& path, const std::vector<std::string>& inputs) {
  for (const auto& input : inputs) {
    if (same_file(input, path))
      fail("output '{}' is the input file; refusing to overwrite it", path);
  }
}
}  // namespace

// The input check comes first: AtomicFile would otherwise create its temporary file beside an
// input the user is about to be told not to overwrite.
GraphWriter::GraphWriter(std::string path, const std::vector<std::string>& inputs)
    : file_((check_not_input(path, inputs), std::move(path))) {}

size_t GraphWriter::add_section(format::SectionKind kind, uint32_t element_size, uint64_t bytes) {
  if (sections_.size() == format::kMaxSections) fail("internal: too many sections");
  if (open_) fail("internal: a section is still open");
  sections_.push_back({static_cast<uint32_t>(kind), element_size, end_, bytes, 0});
  checksummed_.push_back(true);
  end_ = format::align_up(end_ + bytes);
  return sections_.size() - 1;
}

size_t GraphWriter::open_section(format::SectionKind kind, uint32_t element_size) {
  const size_t s = add_section(kind, element_size, 0);
  checksummed_.back() = false;
  sections_.back().bytes = UINT64_MAX - end_;  // writes anywhere after the start, until closed
  open_ = true;
  return s;
}

void GraphWriter::close_section(size_t section, uint64_t bytes) {
  if (!open_ || section + 1 != sections_.size())
    fail("internal: closing a section that is not open");
  sections_[section].bytes = bytes;
  end_ = format::align_up(sections_[section].offset + bytes);
  open_ = false;
}

uint64_t GraphWriter::hash_written(uint64_t file_offset, uint64_t bytes) const {
  return file_range_hash(file_.fd(), file_offset, bytes);
}

void GraphWriter::write(size_t section, uint64_t position, const void* data, size_t bytes) {
  const auto& entry = sections_.at(section);
  if (position + bytes > entry.bytes) fail("internal: write past the end of a section");
  file_.write_at(entry.offset + position, data, bytes);
}

void GraphWriter::commit(format::Header header) {
  // Pad the file to its full length so every section, also an empty last one, is inside it.
  if (open_) fail("internal: a section is still open at commit");
  file_.resize(end_);
  for (size_t i = 0; i < sections_.size(); ++i) {
    auto& entry = sections_[i];
    entry.checksum =
        checksummed_[i] ? file_range_checksum(file_.fd(), entry.offset, entry.bytes) : 0;
  }
  std::memcpy(header.magic, format::kMagic, sizeof(header.magic));
  header.version = format::kVersion;
  header.header_bytes = static_cast<uint32_t>(format::kHeaderBytes);
  header.section_count = static_cast<uint32_t>(sections_.size());
  std::memset(header.sections, 0, sizeof(header.sections));
  std::copy(sections_.begin(), sections_.end(), header.sections);
  header.header_checksum = 0;
  header.header_checksum = XXH3_64bits(&header, sizeof(header));
  std::vector<char> block(format::kHeaderBytes, 0);
  std::memcpy(block.data(), &header, sizeof(header));
  file_.write_at(0, block.data(), block.size());
  file_.commit();
}

}  // namespace tg
