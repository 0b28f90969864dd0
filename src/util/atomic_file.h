// A file that appears under its name only when complete: it is written under a temporary name in
// the same directory and renamed at commit(); destroyed uncommitted, it leaves nothing behind.
// This is how every output of tiergraph is written, so a failure never leaves a half file and
// never damages an existing one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tg {

// Refuses (tg::Error) to replace an existing `path` unless `overwrite` is set: the one place that
// decides whether an output may replace what is there.
void refuse_existing_output(const std::string& path, bool overwrite);

// Checks before any work that `path` can be written (tg::Error otherwise, naming the problem): a
// name, not a directory, in a directory that exists and that this process may write, and not an
// existing file unless `overwrite`. A run or a calibration that only failed to write its result
// once done had spent its time for nothing.
void check_output_path(const std::string& path, bool overwrite);

class AtomicFile {
 public:
  // Fails (tg::Error) when the directory does not exist or `path` is a directory.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  void write(const void* data, size_t bytes);                      // appends
  void write_at(uint64_t offset, const void* data, size_t bytes);  // positioned, any thread
  void resize(uint64_t bytes);
  void commit();

 private:
  std::string path_, temp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace tg
