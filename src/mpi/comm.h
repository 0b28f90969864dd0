// What a distributed engine asks of MPI, in bytes and vertex ranges, so that no template header
// includes mpi.h: gathering each rank's slice of a vertex array, exchanging per-peer buffers
// (MPI_Alltoallv), merging whole arrays with an operator (MPI_Allreduce), gathering slices on
// rank 0. Every call is a collective of the job (all ranks make it, in the same order) and counts
// what it sends and the time it takes. An exchange splits its time into waiting (the exchange of
// counts, a few bytes, returns when the slowest rank arrives: load imbalance) and communication
// (the transfer itself); the other calls count all their time as communication (a barrier to
// split it would cost a round trip each).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tg::mpi {

// How values reduce across ranks (in a collective, or accumulated one-sidedly), and the value
// types that travel as MPI scalars; mpi/types.h maps both to MPI's handles, and the MPI engine's
// engine/mpi/ops.h maps the engine's combine operators and vertex types to them.
enum class ReduceOp { kMin, kMax, kSum, kOr };
enum class Scalar { kU32, kU64, kI64, kF64 };

struct CommCounters {
  uint64_t bytes_sent = 0;  // to other ranks
  uint64_t messages = 0;    // non-empty buffers to other ranks
  double communication_seconds = 0;
  double wait_seconds = 0;
  CommCounters& operator+=(const CommCounters& o) {
    bytes_sent += o.bytes_sent;
    messages += o.messages;
    communication_seconds += o.communication_seconds;
    wait_seconds += o.wait_seconds;
    return *this;
  }
};

class Comm {
 public:
  // `bounds`: size + 1 ascending vertex ids, rank r mastering [bounds[r], bounds[r + 1]).
  explicit Comm(std::vector<uint64_t> bounds);

  int rank() const { return rank_; }
  int size() const { return size_; }
  uint64_t first(int r) const { return bounds_[static_cast<size_t>(r)]; }
  uint64_t end(int r) const { return bounds_[static_cast<size_t>(r) + 1]; }
  // The rank mastering v.
  int owner(uint64_t v) const;

  // Every rank's slice of an n-value array (elements of `elem_bytes`) copied into every rank's.
  void allgather_slices(void* values, size_t elem_bytes);
  // The same for a bitmap over the vertices (each rank's slice is whole 64-bit words: the
  // bounds are multiples of 64, but for the last).
  void allgather_bits(uint64_t* words);
  // Rank r's slice arrives in rank 0's array; other ranks' arrays are left as they are.
  void gather_slices_to_root(void* values, size_t elem_bytes);
  // The first `bytes` of each rank's `mine`, in rank order (on every rank).
  std::vector<std::byte> allgather(const void* mine, size_t bytes);
  // Each rank's text, on rank 0 (in rank order); other ranks get an empty list.
  std::vector<std::string> gather_text(const std::string& mine);
  // Merges `count` values in place with op across all ranks.
  void allreduce(void* values, size_t count, Scalar type, ReduceOp op);
  // Sends to each rank r the counts[r] bytes at send + r * stride (nothing to itself) and returns
  // what each rank sent here, concatenated in rank order (`from`: size + 1 offsets into it).
  // `more`: this rank has more to send after these; any_more: some rank has (all ranks then
  // make another round, so that an exchange fits a bounded buffer).
  std::vector<std::byte> exchange(const std::byte* send, size_t stride,
                                  const std::vector<size_t>& counts, bool more, bool& any_more,
                                  std::vector<size_t>& from);
  // One step of a shift among the ranks (each rank names its own partners, and every rank
  // calls it): sends `mine` to rank `to` and returns in `theirs`, resized, what rank `from` sent
  // here. Large arrays travel in pieces of at most 1 GiB (MPI's int counts).
  template <typename T>
  void shift(const std::vector<T>& mine, int to, std::vector<T>& theirs, int from) {
    theirs.resize(shift_size(mine.size(), to, from));
    shift_bytes(mine.data(), mine.size() * sizeof(T), to, theirs.data(), theirs.size() * sizeof(T),
                from);
  }
  // The largest communication buffers this rank has held (bytes), as callers note them.
  void note_buffer(uint64_t bytes) { peak_buffer_bytes_ = std::max(peak_buffer_bytes_, bytes); }
  uint64_t peak_buffer_bytes() const { return peak_buffer_bytes_; }
  // A barrier, its time counted as waiting.
  void wait_for_all();

  // What this rank sent and spent since the last take_counters().
  CommCounters take_counters();
  const CommCounters& total() const { return total_; }
  // Counts what another channel (the accumulate window) sent and spent.
  void add(const CommCounters& c);

 private:
  uint64_t shift_size(uint64_t mine, int to, int from);
  void shift_bytes(const void* send, size_t send_bytes, int to, void* receive, size_t receive_bytes,
                   int from);

  std::vector<uint64_t> bounds_;
  int rank_ = 0, size_ = 1;
  CommCounters since_{}, total_{};
  uint64_t peak_buffer_bytes_ = 0;
};

// Each rank's (file bytes, header checksum) against rank 0's (collective over the computing
// ranks): a rank whose file differs throws, naming its file and what differs.
void check_same_graph(uint64_t file_bytes, uint64_t header_checksum, const char* path);

}  // namespace tg::mpi
