// The far-memory rank tier read by one-sided copies (far_rank.h describes the tier): each lease's
// byte ranges are MPI_Rget from the far rank's window into the copying store's buffers. What a
// far rank on another machine costs (RDMA over UCX); on one machine the in-place FarRankStore is
// used unless the run is told to copy.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph_file.h"
#include "store/far_rank.h"
#include "store/transfer.h"

namespace tg {

class RankTransfer final : public Transfer {
 public:
  // Collective with rank 1's serve_far_blocks (in_place false): sends the far slots, opens the
  // window, and waits until rank 1 holds every far block. chunk_bytes: the largest single MPI_Rget.
  RankTransfer(const GraphFile& file, const std::vector<unsigned char>& far_slots,
               uint64_t chunk_bytes);
  // Tells rank 1 the run is over and closes the window (collective).
  ~RankTransfer() override;
  RankTransfer(const RankTransfer&) = delete;
  RankTransfer& operator=(const RankTransfer&) = delete;

  std::string name() const override { return "rank"; }
  uint64_t alignment() const override { return 1; }
  void start(uint64_t id, std::vector<ReadRange> ranges) override;
  uint64_t complete(std::string& error) override;
  uint64_t window_bytes() const { return layout_.bytes; }
  // The far rank's peak resident memory once it held the far blocks (it does nothing else after).
  uint64_t server_peak_rss_bytes() const { return server_peak_rss_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  FarLayout layout_;
  uint64_t chunk_bytes_;
  uint64_t server_peak_rss_ = 0;
  std::string path_;
};

}  // namespace tg
