#include "graph/graph_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "graph/checksum.h"
#include "util/error.h"

namespace tg {

namespace fs = std::filesystem;

namespace {
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
}  // namespace

GraphWriter::GraphWriter(std::string path, const std::vector<std::string>& inputs)
    : path_(std::move(path)) {
  if (path_.empty()) fail("output path is empty");
  for (const auto& input : inputs) {
    if (same_file(input, path_)) fail("output '{}' is the input file; refusing to overwrite it", path_);
  }
  const fs::path parent = fs::path(path_).parent_path();
  if (!parent.empty() && !fs::is_directory(parent)) {
    fail("cannot write '{}': directory '{}' does not exist", path_, parent.string());
  }
  if (fs::is_directory(path_)) fail("cannot write '{}': it is a directory", path_);
  temp_path_ = path_ + ".tmp-XXXXXX";
  fd_ = mkstemp(temp_path_.data());
  if (fd_ < 0) fail("cannot create a temporary file beside '{}': {}", path_, std::strerror(errno));
}

GraphWriter::~GraphWriter() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(temp_path_.c_str());
}

size_t GraphWriter::add_section(format::SectionKind kind, uint32_t element_size, uint64_t bytes) {
  if (sections_.size() == format::kMaxSections) fail("internal: too many sections");
  sections_.push_back({static_cast<uint32_t>(kind), element_size, end_, bytes, 0});
  end_ = format::align_up(end_ + bytes);
  return sections_.size() - 1;
}

void GraphWriter::write(size_t section, uint64_t position, const void* data, size_t bytes) {
  const auto& entry = sections_.at(section);
  if (position + bytes > entry.bytes) fail("internal: write past the end of a section");
  const auto* p = static_cast<const char*>(data);
  uint64_t at = entry.offset + position;
  while (bytes > 0) {
    const ssize_t done = pwrite(fd_, p, bytes, static_cast<off_t>(at));
    if (done < 0) {
      if (errno == EINTR) continue;
      fail("writing '{}' failed: {}", path_, std::strerror(errno));
    }
    p += done;
    at += static_cast<uint64_t>(done);
    bytes -= static_cast<size_t>(done);
  }
}

void GraphWriter::commit(format::Header header) {
  // Pad the file to its full length so every section, also an empty last one, is inside it.
  if (ftruncate(fd_, static_cast<off_t>(end_)) != 0) {
    fail("writing '{}' failed: {}", path_, std::strerror(errno));
  }
  for (auto& entry : sections_) entry.checksum = file_range_checksum(fd_, entry.offset, entry.bytes);
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
  uint64_t at = 0;
  while (at < block.size()) {
    const ssize_t done = pwrite(fd_, block.data() + at, block.size() - at, static_cast<off_t>(at));
    if (done < 0) fail("writing '{}' failed: {}", path_, std::strerror(errno));
    at += static_cast<uint64_t>(done);
  }
  if (fchmod(fd_, 0644) != 0 || close(fd_) != 0) fail("writing '{}' failed: {}", path_, std::strerror(errno));
  fd_ = -1;
  if (rename(temp_path_.c_str(), path_.c_str()) != 0) {
    fail("cannot rename '{}' to '{}': {}", temp_path_, path_, std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace tg
