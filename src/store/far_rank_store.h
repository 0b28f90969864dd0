// The far-memory rank tier read in place (far_rank.h describes the tier): when the far rank shares
// this machine its window is shared memory, and the computing rank's workers load the far blocks
// from it as they load a NUMA node's (ResidentStore), with no copy and no request per lease. The
// far rank's pages are its own: the computing rank maps them, and the run counts them as the far
// tier's memory (window_bytes), not its own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "store/far_rank_pair.h"
#include "store/resident_store.h"

namespace tg {

class FarRankStore final : public ResidentStore {
 public:
  // Collective with rank 1's serve_far_blocks (in_place true): sends the far slots, opens the
  // shared window, waits until rank 1 holds every far block, and checks them there (structure,
  // and hashes unless told not to). out/in: the view's decoders. far_slots: as RankTransfer's.
  FarRankStore(const std::shared_ptr<const GraphFile>& file,
               const std::vector<unsigned char>& far_slots, const BlockDecoder* out,
               const BlockDecoder* in, bool weights, bool check_hashes);
  // Tells rank 1 the run is over and closes the window (collective).
  ~FarRankStore() override;
  FarRankStore(const FarRankStore&) = delete;
  FarRankStore& operator=(const FarRankStore&) = delete;

  std::string name() const override { return "rank"; }
  uint64_t window_bytes() const { return region_bytes(); }
  // The far rank's peak resident memory once it held the far blocks (it does nothing else after).
  uint64_t server_peak_rss_bytes() const { return server_peak_rss_; }

 private:
  far_rank::Window window_;
  uint64_t server_peak_rss_ = 0;
};

}  // namespace tg
