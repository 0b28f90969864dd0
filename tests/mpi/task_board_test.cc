// The task board's protocol on its own (stealing between ranks), under mpirun with 1, 2 and 4
// ranks: over several passes, every published slice is taken exactly once, by its owner or by
// one thief, and a thief gets the slice's records as published. Rank 0 starts on its own slices
// late, so with more than one rank the others run dry first and steal from it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/mpi/steal.h"
#include "job.h"
#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"

namespace tg::dist {
namespace {

constexpr uint32_t kMaxSlices = 8;

struct Record {
  uint64_t owner_and_pass;   // owner << 32 | pass
  uint64_t slice_and_index;  // slice << 32 | index in the slice
};
static_assert(sizeof(Record) == 16);

// How many slices `owner` publishes in `pass` (none now and then), and how many records slice k
// has.
uint64_t slices_of(int owner, uint64_t pass) {
  return (static_cast<uint64_t>(owner) * 3 + pass) % (kMaxSlices + 1);
}
uint64_t records_in(uint64_t k) { return 3 * k + 1; }

TEST(TaskBoardProtocol, EverySliceIsTakenOnceWithItsRecords) {
  mpi::Comm comm = whole_job();
  const int me = comm.rank(), p = comm.size();
  TaskBoard board(comm, sizeof(Record), 1000, kMaxSlices);
  uint64_t stolen_here = 0;
  for (uint64_t pass = 1; pass <= 6; ++pass) {
    std::vector<Record> records;
    std::vector<size_t> bounds{0};
    for (uint64_t k = 0; k < slices_of(me, pass); ++k) {
      for (uint64_t i = 0; i < records_in(k); ++i)
        records.push_back({uint64_t(me) << 32 | pass, k << 32 | i});
      bounds.push_back(records.size());
    }
    // A pass with no slices has no records: memcpy must not see the empty vector's null data().
    if (!records.empty())
      std::memcpy(board.records(), records.data(), records.size() * sizeof(Record));
    board.publish(pass, bounds);
    MPI_Barrier(MPI_COMM_WORLD);  // every board holds this pass's slices before anyone looks
    // taken[owner * kMaxSlices + slice]: how often this rank took that slice in this pass.
    std::vector<int> taken(static_cast<size_t>(p) * kMaxSlices, 0), total(taken.size(), 0);
    if (me == 0 && p > 1) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    for (int64_t k; (k = board.take_own()) >= 0;) {
      ASSERT_LT(static_cast<uint64_t>(k), slices_of(me, pass));
      ++taken[static_cast<size_t>(me) * kMaxSlices + static_cast<size_t>(k)];
    }
    std::vector<std::byte> got;
    for (size_t count; (count = board.steal(pass, got)) > 0;) {
      ASSERT_EQ(got.size(), count * sizeof(Record));
      Record first;
      std::memcpy(&first, got.data(), sizeof(Record));
      const auto owner = static_cast<int>(first.owner_and_pass >> 32);
      const uint64_t slice = first.slice_and_index >> 32;
      ASSERT_NE(owner, me) << "a rank steals only from its peers";
      ASSERT_LT(slice, slices_of(owner, pass));
      ASSERT_EQ(count, records_in(slice)) << "the whole slice, no more";
      for (size_t i = 0; i < count; ++i) {
        Record r;
        std::memcpy(&r, got.data() + i * sizeof(Record), sizeof(Record));
        ASSERT_EQ(r.owner_and_pass, (uint64_t(owner) << 32 | pass))
            << "this pass's records, from that owner";
        ASSERT_EQ(r.slice_and_index, slice << 32 | i) << "the slice's records in order";
      }
      ++taken[static_cast<size_t>(owner) * kMaxSlices + slice];
      ++stolen_here;
    }
    MPI_Allreduce(taken.data(), total.data(), static_cast<int>(taken.size()), MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    for (int owner = 0; owner < p; ++owner) {
      for (uint64_t k = 0; k < kMaxSlices; ++k) {
        EXPECT_EQ(total[static_cast<size_t>(owner) * kMaxSlices + k],
                  k < slices_of(owner, pass) ? 1 : 0)
            << "pass " << pass << ", rank " << owner << "'s slice " << k;
      }
    }
    // The engine ends a pass only once every peer has stopped taking: here a barrier does.
    MPI_Barrier(MPI_COMM_WORLD);
  }
  EXPECT_EQ(board.slices_stolen(), stolen_here);
  uint64_t stolen_anywhere = 0;
  MPI_Allreduce(&stolen_here, &stolen_anywhere, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (p > 1) {
    EXPECT_GT(stolen_anywhere, 0u) << "rank 0 started late: its peers ran dry and took its slices";
  } else {
    EXPECT_EQ(stolen_anywhere, 0u);
  }
}

}  // namespace
}  // namespace tg::dist
