#include "engine/mpi/rank_calibration.h"

#include <mpi.h>

#include <chrono>
#include <climits>
#include <deque>
#include <exception>
#include <random>
#include <thread>
#include <vector>

#include "mpi/communicators.h"
#include "mpi/mpi_runtime.h"
#include "mpi/types.h"
#include "mpi/window.h"
#include "util/error.h"

namespace tg {
namespace {

constexpr int kServer = 1, kReader = 0;
constexpr int kDoneTag = 7402;
using Clock = std::chrono::steady_clock;

void check(int code, const char* call) { mpi::check(code, "calibrate --far rank", call); }

}  // namespace

void serve_calibration_window(uint64_t bytes) {
  mpi::Window window(mpi::far_pair(), bytes, "calibrate --far rank");
  for (uint64_t k = 0; k < bytes; k += 4096)
    window.base()[k] = static_cast<std::byte>(k >> 12);  // resident
  check(MPI_Barrier(mpi::far_pair()), "MPI_Barrier");
  mpi::wait_for_message(kReader, kDoneTag);  // serve until rank 0 is done
}

struct RankReadCalibration::Impl {
  mpi::Window window{mpi::far_pair(), 0, "calibrate --far rank"};  // the reader exposes nothing
};

RankReadCalibration::RankReadCalibration(uint64_t bytes)
    : impl_(std::make_unique<Impl>()), bytes_(bytes) {
  check(MPI_Barrier(mpi::far_pair()), "MPI_Barrier");
  impl_->window.lock_all();
}

RankReadCalibration::~RankReadCalibration() {
  // The server frees its window (collective with this one's) once told the reading is done.
  impl_->window.unlock_all();
  int message = 1;
  MPI_Send(&message, 1, MPI_INT, kServer, kDoneTag, mpi::far_pair());
}

FetchPoint RankReadCalibration::measure(uint64_t chunk, uint32_t depth, uint32_t threads,
                                        double seconds, uint64_t seed) {
  if (chunk == 0 || chunk > bytes_ || chunk > INT_MAX)
    fail("calibrate: a chunk of {} bytes does not fit the window", chunk);
  if (depth == 0 || threads == 0) fail("calibrate: depth and threads must be at least 1");
  struct Reader {
    uint64_t requests = 0;
    double request_seconds = 0;
    std::exception_ptr error;
  };
  std::vector<Reader> readers(threads);
  const auto begin = Clock::now();
  const auto end = begin + std::chrono::duration<double>(seconds);
  std::vector<std::thread> team;
  team.reserve(threads);
  for (uint32_t t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      Reader& me = readers[t];
      try {
        std::vector<unsigned char> buffer(chunk * depth);
        std::mt19937_64 rng(seed * 7919 + t);
        std::uniform_int_distribution<uint64_t> at(0, (bytes_ - chunk) / 64);
        struct Out {
          MPI_Request request;
          Clock::time_point started;
          uint32_t slot;
        };
        std::deque<Out> out;  // in the order started: the oldest is waited for first
        auto start = [&](uint32_t slot) {
          Out o{MPI_REQUEST_NULL, Clock::now(), slot};
          const int count = static_cast<int>(chunk);
          check(MPI_Rget(buffer.data() + uint64_t{slot} * chunk, count, MPI_BYTE, kServer,
                         static_cast<MPI_Aint>(at(rng) * 64), count, MPI_BYTE,
                         impl_->window.handle(), &o.request),
                "MPI_Rget");
          out.push_back(o);
        };
        for (uint32_t d = 0; d < depth; ++d) start(d);
        while (!out.empty()) {
          Out o = out.front();
          out.pop_front();
          check(MPI_Wait(&o.request, MPI_STATUS_IGNORE), "MPI_Wait");
          const auto now = Clock::now();
          me.request_seconds += std::chrono::duration<double>(now - o.started).count();
          ++me.requests;
          if (now < end) start(o.slot);
        }
      } catch (...) {
        me.error = std::current_exception();
      }
    });
  }
  for (auto& t : team) t.join();
  for (auto& r : readers)
    if (r.error) std::rethrow_exception(r.error);
  const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  FetchPoint p{.chunk_bytes = chunk, .depth = depth, .threads = threads};
  double request_seconds = 0;
  for (const auto& r : readers) p.requests += r.requests, request_seconds += r.request_seconds;
  p.bytes_per_second = elapsed > 0 ? static_cast<double>(p.requests * chunk) / elapsed : 0;
  p.latency_seconds = p.requests > 0 ? request_seconds / static_cast<double>(p.requests) : 0;
  return p;
}

}  // namespace tg
