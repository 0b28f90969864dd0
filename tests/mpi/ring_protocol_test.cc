// The ring exchange's protocol on its own, under mpirun with 1, 2 and 4 ranks (ctest runs it so):
// every record arrives exactly once and, from each sender, in the order it was added, over many
// passes through rings much smaller than what a pass sends (so they wrap, fill and wait). The
// algorithms' answers would not show a duplicated record under min or or: this test does.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <vector>

#include "engine/mpi/ring.h"
#include "job.h"
#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"
#include "util/error.h"

namespace tg::dist {
namespace {

struct Record {
  uint64_t sender;
  uint64_t seq;  // the record's place in what sender sent this receiver in this pass
};

// How many records `from` sends `to` in `pass`: varied, zero now and then, many rings' worth.
uint64_t records_between(int from, int to, int pass) {
  uint64_t x = static_cast<uint64_t>(from) * 7919 + static_cast<uint64_t>(to) * 104729 +
               static_cast<uint64_t>(pass) * 1299709;
  x ^= x >> 13;
  x *= 0x9e3779b97f4a7c15ULL;
  return (x >> 40) % 5 == 0 ? 0 : (x >> 20) % 700;
}

struct Shape {
  uint32_t batch;
  double hurried;
  uint64_t memory;
};

void PrintTo(const Shape& s, std::ostream* os) {
  *os << "batch " << s.batch << ", hurried " << s.hurried << ", memory " << s.memory;
}

class RingProtocol : public ::testing::TestWithParam<Shape> {};

TEST_P(RingProtocol, EveryRecordArrivesOnceAndInOrder) {
  const Shape shape = GetParam();
  mpi::Comm comm = whole_job();
  const int me = comm.rank(), p = comm.size();
  Rings rings(
      comm, sizeof(Record),
      RingOptions{
          .batch_records = shape.batch, .hurried = shape.hurried, .memory_bytes = shape.memory});
  EXPECT_GE(rings.slots(), 2u);
  EXPECT_LE(rings.bytes(), shape.memory);
  uint64_t expected_batches = 0;
  for (int pass = 0; pass < 6; ++pass) {
    std::vector<uint64_t> next(static_cast<size_t>(p), 0);  // per sender: the seq expected next
    uint64_t wrong = 0;
    rings.begin(sizeof(Record), [&](const std::byte* records, size_t count) {
      for (size_t k = 0; k < count; ++k) {
        Record r;
        std::memcpy(&r, records + k * sizeof(Record), sizeof(r));
        if (r.sender >= static_cast<uint64_t>(p) || r.sender == static_cast<uint64_t>(me) ||
            r.seq != next[r.sender]) {
          ++wrong;
        } else {
          ++next[r.sender];
        }
      }
    });
    // Interleave the peers, as a pass's changed vertices do.
    uint64_t most = 0;
    for (int to = 0; to < p; ++to) most = std::max(most, records_between(me, to, pass));
    for (uint64_t k = 0; k < most; ++k) {
      for (int to = 0; to < p; ++to) {
        if (to == me || k >= records_between(me, to, pass)) continue;
        const Record r{static_cast<uint64_t>(me), k};
        rings.add(to, &r);
      }
    }
    rings.finish();
    EXPECT_EQ(wrong, 0u) << "pass " << pass << ": records duplicated, out of order or from nowhere";
    for (int from = 0; from < p; ++from) {
      if (from == me) continue;
      EXPECT_EQ(next[static_cast<size_t>(from)], records_between(from, me, pass))
          << "pass " << pass << ", from rank " << from;
      // Full batches, then the end batch with the rest (perhaps none).
      expected_batches += records_between(me, from, pass) / rings.batch_records() + 1;
    }
  }
  EXPECT_EQ(rings.counters().batches, expected_batches);
  EXPECT_LE(rings.counters().hurried, rings.counters().batches);
  if (shape.hurried == 1.0) {
    EXPECT_EQ(rings.counters().hurried, 0u) << "a ring can never be fuller than all its slots";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, RingProtocol,
    ::testing::Values(Shape{1, 0.8, 4096},           // one record a batch, a few slots
                      Shape{3, 0.01, 2048},          // every batch hurried once a slot is unread
                      Shape{128, 1.0, 4096},         // batches shrunk to fit 2 slots; never hurried
                      Shape{128, 0.8, 64u << 20}));  // the default: 64 slots

TEST(RingMemory, TooLittleMemoryIsRefusedOnEveryRank) {
  if (mpi::size() == 1) GTEST_SKIP() << "one rank has no rings to fit";
  mpi::Comm comm = whole_job();
  EXPECT_THROW(Rings(comm, sizeof(Record), RingOptions{.memory_bytes = 64}), Error);
}

}  // namespace
}  // namespace tg::dist
