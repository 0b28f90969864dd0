// Measuring the far-memory rank tier as the rank store reads it: under
// `mpirun -np 2 tiergraph calibrate --far rank`, rank 1 holds a window of memory and serves, and
// rank 0 reads it with one-sided MPI_Rget, each reader keeping `depth` reads of `chunk_bytes` in
// flight at random offsets.
#pragma once

#include <cstdint>
#include <memory>

#include "store/fetch_profile.h"

namespace tg {

// Rank 1: holds `bytes` in a window until rank 0's RankReadCalibration ends (collective with it).
void serve_calibration_window(uint64_t bytes);

// Rank 0: the reading side.
class RankReadCalibration {
 public:
  explicit RankReadCalibration(uint64_t bytes);  // collective with serve_calibration_window
  ~RankReadCalibration();                        // tells rank 1 to stop (collective)
  RankReadCalibration(const RankReadCalibration&) = delete;
  RankReadCalibration& operator=(const RankReadCalibration&) = delete;

  FetchPoint measure(uint64_t chunk_bytes, uint32_t depth, uint32_t threads, double seconds,
                     uint64_t seed);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t bytes_;
};

}  // namespace tg
