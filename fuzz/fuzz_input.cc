#include "fuzz/fuzz_input.h"

#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <variant>

#include "util/error.h"

namespace tg::fuzz {

namespace {

namespace fs = std::filesystem;

// A broken promise of the reader: report it the way libFuzzer reports a crash.
[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz: %s\n", what);
  std::abort();
}

// This process's scratch directory (tmpfs when there is one: the input file is rewritten thousands
// of times a second), holding the input file; removed at exit.
class Workspace {
 public:
  Workspace() {
    // One thread: runs are deterministic and the machine's cores go to one fuzzer at a time. The
    // reader still cuts every input into 4 stretches per thread, so its stretch boundaries are
    // exercised all the same.
    omp_set_num_threads(1);
    const fs::path root =
        fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string dir = (root / fmt::format("tg-fuzz-{}-XXXXXX", ::getpid())).string();
    if (::mkdtemp(dir.data()) == nullptr) broken("cannot create the scratch directory");
    dir_ = dir;
    input_ = (dir_ / "input").string();
  }
  ~Workspace() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  const std::string& input() const { return input_; }

 private:
  fs::path dir_;
  std::string input_;
};

Workspace& workspace() {
  static Workspace w;
  return w;
}

// What read_edge_list promises about the list it returns.
void check_edge_list(const EdgeList& list) {
  if (list.size() == 0 && !list.declared_vertices)
    broken("an empty edge list without a declared vertex count");
  std::visit(
      [&]<typename Id, typename W>(const EdgeArray<Id, W>& edges) {
        for (const auto& e : edges) {
          if (list.declared_vertices) {
            const uint64_t n = *list.declared_vertices;
            for (const uint64_t x : {uint64_t{e.u}, uint64_t{e.v}}) {
              if (x < list.id_base || x - list.id_base >= n)
                broken("an id outside the declared vertices");
            }
          }
          if constexpr (std::is_same_v<W, double>) {
            const WeightInfo& info = list.weight_info;
            if (!std::isfinite(e.w) || e.w < info.min || e.w > info.max)
              broken("a weight outside the recorded range");
            if (info.all_integral &&
                (e.w != std::trunc(e.w) || !(e.w >= -0x1p63 && e.w < 0x1p63))) {
              broken("a weight recorded as integral is not an int64");
            }
          }
        }
      },
      list.edges);
}

}  // namespace

Input::Input(const uint8_t* data, size_t size) {
  if (size == 0) return;
  bits_ = data[0];
  text_ = {data + 1, size - 1};
}

unsigned Input::take(int bits) {
  const unsigned value = bits_ & ((1u << bits) - 1);
  bits_ >>= bits;
  return value;
}

std::optional<IdMode> take_id_mode(Input& in) {
  switch (in.take(2)) {
    case 1:
      return IdMode::kIndex;
    case 2:
      return IdMode::kLabel;
    default:
      return std::nullopt;
  }
}

const std::string& as_file(std::span<const uint8_t> bytes) {
  const std::string& path = workspace().input();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
      std::fclose(f) != 0) {
    broken("cannot write the input file");
  }
  return path;
}

void read_and_check(std::span<const uint8_t> text, const ParseOptions& parse) {
  try {
    check_edge_list(read_edge_list(as_file(text), parse));
  } catch (const Error&) {
    // The input was refused with a message: the expected outcome for bad input.
  }
}

}  // namespace tg::fuzz
