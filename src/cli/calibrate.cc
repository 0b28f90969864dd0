// `tiergraph calibrate [--far file|rank] [-o profile.json]`: measures how this machine's far tier
// reads (bandwidth and latency per chunk size and depth, and scaling with reading threads at the
// chosen point), chooses the chunk size and depth the planner should use, and writes them as a
// profile that `run` and `plan` read with `--profile`.
#include <fcntl.h>
#include <fmt/format.h>
#include <omp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "cli/commands.h"
#include "cli/validators.h"
#include "engine/mpi/rank_calibration.h"
#include "mpi/mpi_runtime.h"
#include "plan/tier_plan.h"
#include "store/fetch_profile.h"
#include "store/file_calibration.h"
#include "util/atomic_file.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/interrupt_cleanup.h"
#include "util/log.h"

namespace tg::cli {
namespace {

struct CalibrateArgs {
  std::string far = "file", dir = ".", file, output, size = "256M";
  double seconds = 0.2;
  int max_threads = 0;
  bool json = false, overwrite = false;
  bool output_given = false;  // -o, even as "": an empty name is refused
};

constexpr std::array<uint64_t, 7> kChunks{4 << 10, 16 << 10, 64 << 10, 256 << 10,
                                          1 << 20, 4 << 20,  16 << 20};
constexpr std::array<uint32_t, 5> kDepths{1, 2, 4, 8, 16};

// A scratch file of `bytes` in `dir`, written through and removed when done (or interrupted).
class ScratchFile {
 public:
  ScratchFile(const std::string& dir, uint64_t bytes) {
    path_ = (std::filesystem::path(dir) / "tiergraph-calibrate-XXXXXX").string();
    const int fd = create_temporary_file(path_);
    if (fd < 0)
      fail("calibrate: cannot create a scratch file in '{}': {}", dir, std::strerror(errno));
    std::vector<unsigned char> block(1 << 20);
    for (size_t k = 0; k < block.size(); ++k) block[k] = static_cast<unsigned char>(k * 131 + 7);
    for (uint64_t at = 0; at < bytes; at += block.size()) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(block.size(), bytes - at));
      if (::pwrite(fd, block.data(), n, static_cast<off_t>(at)) != static_cast<ssize_t>(n)) {
        const int e = errno;
        ::close(fd);
        remove();
        fail("calibrate: cannot write the scratch file '{}': {}", path_, std::strerror(e));
      }
    }
    ::fsync(fd);
    ::close(fd);
  }
  ~ScratchFile() { remove(); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  void remove() {
    ::unlink(path_.c_str());
    forget_on_interrupt(path_);
  }
  std::string path_;
};

std::string rate(double bytes_per_second) {
  return fmt::format("{:.0f} MB/s", bytes_per_second / 1e6);
}

// Chunks x depths with one reader, then threads 1, 2, 4 .. at the chosen point.
template <typename Measure>
TierProfile calibrate_tier(const std::string& tier, const std::string& where, uint64_t space,
                           int max_threads, Measure measure) {
  TierProfile t{tier, where, {}, {}};
  log::info(
      "{} tier ({}): bandwidth with one reader, by chunk size (rows) and requests in flight "
      "(columns)",
      tier, where);
  std::string header = fmt::format("  {:>8}", "chunk");
  for (uint32_t depth : kDepths) header += fmt::format(" {:>11}", fmt::format("depth {}", depth));
  log::info("{}", header);
  for (uint64_t chunk : kChunks) {
    if (chunk > space) break;
    std::string row;
    for (uint32_t depth : kDepths) {
      t.points.push_back(measure(chunk, depth, 1u));
      row += fmt::format(" {:>11}", rate(t.points.back().bytes_per_second));
    }
    log::info("  {:>8}{}", format_byte_size(chunk), row);
  }
  t.chosen = choose_fetch_profile(t.points);
  for (const FetchPoint& p : t.points)
    if (p.depth == 1 && p.chunk_bytes == kChunks.front()) {
      log::info("  latency of one {} read: {:.1f} us", format_byte_size(p.chunk_bytes),
                p.latency_seconds * 1e6);
    }
  for (int threads = 2; threads <= max_threads; threads *= 2) {
    t.points.push_back(
        measure(t.chosen.chunk_bytes, t.chosen.depth, static_cast<uint32_t>(threads)));
  }
  for (const FetchPoint& p : t.points)
    if (p.chunk_bytes == t.chosen.chunk_bytes && p.depth == t.chosen.depth) {
      log::info("  {} reader(s) at the chosen point: {}", p.threads, rate(p.bytes_per_second));
    }
  log::info("  chosen: chunks of {} with {} in flight; chunks may shrink to {}",
            format_byte_size(t.chosen.chunk_bytes), t.chosen.depth,
            format_byte_size(t.chosen.smallest_chunk));
  return t;
}

void calibrate_command(const CalibrateArgs& a) {
  const auto space = parse_byte_size(a.size);
  if (!space || *space < kChunks.front()) fail("--size must be at least 4K, got '{}'", a.size);
  // Refused before a byte is written: a scratch file larger than the free space filled the disk
  // (--size 99T wrote 66 GB, then "No space left on device"), and a window larger than memory
  // cannot be held.
  if (a.far == "file" && a.file.empty()) {
    struct statvfs fs {};
    if (::statvfs(a.dir.c_str(), &fs) != 0)
      fail("calibrate: cannot read the free space of '{}': {}", a.dir, std::strerror(errno));
    const uint64_t free = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (*space > free) {
      fail(
          "calibrate: --size {} asks for a scratch file of {} bytes in '{}', whose filesystem has "
          "{} bytes ({}) free; "
          "give a smaller --size",
          a.size, *space, a.dir, free, format_byte_size(free));
    }
  }
  if (a.far == "rank" && machine_memory_bytes() > 0 && *space > machine_memory_bytes()) {
    fail(
        "calibrate: --size {} asks rank 1 for a window of {} bytes, more than this machine's "
        "memory ({} bytes); give "
        "a smaller --size",
        a.size, *space, machine_memory_bytes());
  }
  if (a.output_given) check_output_path(a.output, a.overwrite);  // before measuring, not after
  const int max_threads = a.max_threads > 0 ? a.max_threads : omp_get_num_procs();
  TierProfile tier;
  if (a.far == "file") {
    std::unique_ptr<ScratchFile> scratch;
    std::string path = a.file;
    uint64_t bytes = 0;
    if (path.empty()) {
      scratch = std::make_unique<ScratchFile>(a.dir, *space);
      path = scratch->path();
      bytes = *space;
    } else {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0)
        fail("calibrate: cannot read '{}': {}", path, std::strerror(errno));
      bytes = static_cast<uint64_t>(st.st_size) / 4096 * 4096;
    }
    const std::string where =
        a.file.empty() ? fmt::format("a scratch file of {} in '{}'", format_byte_size(bytes), a.dir)
                       : fmt::format("'{}'", a.file);
    uint64_t seed = 1;
    tier = calibrate_tier("file", where, bytes, max_threads,
                          [&](uint64_t chunk, uint32_t depth, uint32_t threads) {
                            return measure_file_reads(path, bytes,
                                                      {.chunk_bytes = chunk,
                                                       .depth = depth,
                                                       .threads = threads,
                                                       .seconds = a.seconds,
                                                       .seed = seed++});
                          });
  } else {  // rank
#if !TG_HAVE_MPI
    mpi::refuse_without_mpi("calibrate --far rank");
#else
    if (!mpi::launched()) {
      fail(
          "calibrate --far rank reads from a second process: start it with `mpirun -np 2 tiergraph "
          "calibrate --far "
          "rank ...`");
    }
    mpi::start();
    if (mpi::size() != 2)
      fail("calibrate --far rank runs as two ranks (rank 1 serves the memory), not {}",
           mpi::size());
    if (mpi::rank() == 1) {
      serve_calibration_window(*space);
      return;
    }
    RankReadCalibration window(*space);
    uint64_t seed = 1;
    tier =
        calibrate_tier("rank", fmt::format("a window of {} on rank 1", format_byte_size(*space)),
                       *space, max_threads, [&](uint64_t chunk, uint32_t depth, uint32_t threads) {
                         return window.measure(chunk, depth, threads, a.seconds, seed++);
                       });
#endif
  }
  const auto profile = profile_to_json({tier});
  if (!a.output.empty()) {
    AtomicFile out(a.output);
    const std::string text = profile.dump(2) + "\n";
    out.write(text.data(), text.size());
    out.commit();
    log::info("Wrote the profile to '{}' (use it with run/plan --profile {})", a.output, a.output);
  }
  if (a.json) fmt::print("{}\n", profile.dump(2));
}

}  // namespace

Runner add_calibrate(CLI::App& app) {
  auto* cmd = app.add_subcommand("calibrate",
                                 "Measure how this machine's far tier reads (bandwidth, latency by "
                                 "chunk size, depth and threads) "
                                 "and write a profile for run/plan --profile");
  auto a = std::make_shared<CalibrateArgs>();
  cmd->add_option("--far", a->far,
                  "The tier to measure: file (O_DIRECT reads through io_uring) or rank (one-sided "
                  "reads from a second rank: start with mpirun -np 2)")
      ->check(CLI::IsMember({"file", "rank"}));
  auto* dir =
      cmd->add_option("--dir", a->dir,
                      "--far file: where the scratch file goes (the disk the graphs live on; "
                      "default: the current directory)")
          ->check(CLI::ExistingDirectory);
  cmd->add_option(
         "--file", a->file,
         "--far file: measure reading this existing file (read only) instead of a scratch file")
      ->check(CLI::ExistingFile)
      ->excludes(dir);
  cmd->add_option("--size", a->size,
                  "The scratch file's size (file) or the window's (rank), e.g. 256M (default)")
      ->check(byte_size());
  cmd->add_option("--seconds", a->seconds, "How long each measurement reads (default 0.2)")
      ->check(CLI::Range(0.01, 10.0));
  cmd->add_option("--max-threads", a->max_threads,
                  "Measure reading threads 2, 4 .. up to this (default: the cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("-o,--output", a->output, "Write the profile (JSON) to this file");
  cmd->add_flag("--overwrite", a->overwrite, "Replace the output if it exists");
  cmd->add_flag("--json", a->json, "Print the profile as JSON");
  return [a, cmd] {
    if (a->far == "rank" && (cmd->count("--dir") > 0 || cmd->count("--file") > 0)) {
      fail(
          "--dir and --file choose what the file tier reads; --far rank reads a window of --size "
          "on rank 1");
    }
    a->output_given = cmd->count("--output") > 0;
    calibrate_command(*a);
  };
}

}  // namespace tg::cli
