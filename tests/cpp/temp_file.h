// A file of given bytes in the temporary directory, under a unique name ending in `suffix`,
// removed when the test ends (readers tell formats and compressions by the suffix).
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace tg::testing {

class TempFile {
 public:
  TempFile(const std::string& suffix, const std::string& contents) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("tg_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix))
                .string();
    std::ofstream(path_, std::ios::binary).write(contents.data(), std::ssize(contents));
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tg::testing
