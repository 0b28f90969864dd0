#include "store/far_rank_store.h"

#include <fmt/format.h>

#include "mpi/communicators.h"
#include "store/far_rank.h"
#include "util/error.h"

namespace tg {

using namespace far_rank;

FarRankStore::FarRankStore(const std::shared_ptr<const GraphFile>& file,
                           const std::vector<unsigned char>& far_slots, const BlockDecoder* out,
                           const BlockDecoder* in, bool weights, bool check_hashes)
    : ResidentStore(file) {
  if (pair_size() != 2 || pair_rank() != kOrigin)
    fail("internal: the rank tier runs as rank 0 of a pair of ranks");
  const FarLayout layout = far_layout(*file, share_slots(*file, far_slots));
  window_ = open_window(0, /*in_place=*/true);
  // Rank 1 holds the blocks once it says so; the sync makes its writes visible to this rank's
  // loads.
  check(MPI_Recv(&server_peak_rss_, 1, MPI_UINT64_T, kServer, kLoadedTag, mpi::far_pair(),
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  check(MPI_Win_sync(window_.win), "MPI_Win_sync");
  weights = weights && file->weighted();
  std::vector<Placed> placed;
  placed.reserve(layout.extents.size());
  for (const auto& x : layout.extents) {
    const BlockId& b = x.block;
    placed.push_back({b, x.window_offset, file->block_bytes(b.grid, b.major, b.minor, weights)});
  }
  // A bad block ends the job (a tg::Error on a rank aborts it), so nothing is closed on the way
  // out.
  hold(window_.server_base, layout.bytes, placed, out, in, weights, check_hashes,
       fmt::format("held by the far-memory rank (world rank {})", in_world(kServer)));
}

FarRankStore::~FarRankStore() {
  int message = 1;
  MPI_Send(&message, 1, MPI_INT, kServer, kDoneTag, mpi::far_pair());
  close_window(window_);
}

}  // namespace tg
