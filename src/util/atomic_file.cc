#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.h"
#include "util/interrupt_cleanup.h"
#include "util/option_names.h"

namespace tg {

void refuse_existing_output(const std::string& path, bool overwrite) {
  if (!overwrite && std::filesystem::exists(path)) {
    fail("output '{}' already exists; pass {} to replace it", path, option_on("overwrite"));
  }
}

void check_output_path(const std::string& path, bool overwrite) {
  if (path.empty()) fail("the output path is empty: name the file to write");
  const auto parent = std::filesystem::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  std::error_code ignored;
  if (!std::filesystem::is_directory(dir, ignored))
    fail("cannot write '{}': directory '{}' does not exist", path, dir);
  if (std::filesystem::is_directory(path, ignored))
    fail("cannot write '{}': it is a directory", path);
  // The output is written beside its name and renamed into place: the directory must be writable.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    fail("cannot write '{}': directory '{}' is not writable: {}", path, dir, std::strerror(errno));
  }
  refuse_existing_output(path, overwrite);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  check_output_path(path_,
                    /*overwrite=*/true);  // whether it may replace a file is the caller's to say
  temp_ = path_ + ".tmp-XXXXXX";
  fd_ = create_temporary_file(temp_);
  if (fd_ < 0) fail("cannot create a temporary file beside '{}': {}", path_, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(temp_.c_str());
  if (!temp_.empty()) forget_on_interrupt(temp_);
}

void AtomicFile::write(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("writing '{}' failed: {}", path_, std::strerror(errno));
    }
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void AtomicFile::write_at(uint64_t offset, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = pwrite(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("writing '{}' failed: {}", path_, std::strerror(errno));
    }
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
}

void AtomicFile::resize(uint64_t bytes) {
  if (ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
    fail("writing '{}' failed: {}", path_, std::strerror(errno));
}

void AtomicFile::commit() {
  if (fchmod(fd_, 0644) != 0 || close(fd_) != 0) {
    fd_ = -1;
    fail("writing '{}' failed: {}", path_, std::strerror(errno));
  }
  fd_ = -1;
  if (rename(temp_.c_str(), path_.c_str()) != 0) {
    fail("cannot rename '{}' to '{}': {}", temp_, path_, std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace tg
