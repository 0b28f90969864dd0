#include "mpi/comm.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "mpi/communicators.h"
#include "mpi/mpi_runtime.h"
#include "mpi/types.h"
#include "util/error.h"
#include "util/timer.h"

namespace tg::mpi {

namespace {

int as_count(uint64_t n, const char* what) {
  if (n > static_cast<uint64_t>(INT_MAX))
    fail("{}: {} items exceed MPI's int count; run on more ranks", what, n);
  return static_cast<int>(n);
}

// A datatype of one vertex value (counts then stay in values, not bytes: 2^31 values per rank).
class ValueType {
 public:
  explicit ValueType(size_t bytes) {
    check(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_), "MPI_Type_contiguous");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~ValueType() { MPI_Type_free(&type_); }
  ValueType(const ValueType&) = delete;
  ValueType& operator=(const ValueType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace

Comm::Comm(std::vector<uint64_t> bounds)
    : bounds_(std::move(bounds)), rank_(mpi::rank()), size_(mpi::size()) {
  if (bounds_.size() != static_cast<size_t>(size_) + 1)
    fail("a partition of {} ranks for a job of {}", bounds_.size() - 1, size_);
}

int Comm::owner(uint64_t v) const {
  return static_cast<int>(std::upper_bound(bounds_.begin() + 1, bounds_.end(), v) -
                          bounds_.begin() - 1);
}

void Comm::add(const CommCounters& c) {
  since_ += c;
  total_ += c;
}

CommCounters Comm::take_counters() {
  const CommCounters c = since_;
  since_ = {};
  return c;
}

void Comm::wait_for_all() {
  Timer t;
  check(MPI_Barrier(mpi::compute()), "MPI_Barrier");
  add({.wait_seconds = t.seconds()});
}

void Comm::allgather_slices(void* values, size_t elem_bytes) {
  if (size_ == 1) return;
  Timer t;
  std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    counts[static_cast<size_t>(r)] = as_count(end(r) - first(r), "gathering a vertex array");
    offsets[static_cast<size_t>(r)] = as_count(first(r), "gathering a vertex array");
  }
  const ValueType type(elem_bytes);
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, values, counts.data(), offsets.data(),
                       type.get(), mpi::compute()),
        "MPI_Allgatherv");
  const uint64_t mine = (end(rank_) - first(rank_)) * elem_bytes;
  add({.bytes_sent = mine * static_cast<uint64_t>(size_ - 1),
       .messages = static_cast<uint64_t>(size_ - 1),
       .communication_seconds = t.seconds()});
}

void Comm::allgather_bits(uint64_t* words) {
  if (size_ == 1) return;
  Timer t;
  std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<size_t>(r)] = as_count(first(r) / 64, "gathering a frontier");
    counts[static_cast<size_t>(r)] =
        as_count((end(r) + 63) / 64 - first(r) / 64, "gathering a frontier");
  }
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, words, counts.data(), offsets.data(),
                       MPI_UINT64_T, mpi::compute()),
        "MPI_Allgatherv");
  const uint64_t mine = static_cast<uint64_t>(counts[static_cast<size_t>(rank_)]) * 8;
  add({.bytes_sent = mine * static_cast<uint64_t>(size_ - 1),
       .messages = static_cast<uint64_t>(size_ - 1),
       .communication_seconds = t.seconds()});
}

std::vector<std::string> Comm::gather_text(const std::string& mine) {
  if (size_ == 1) return {mine};
  const int length = as_count(mine.size(), "a rank's report");
  std::vector<int> lengths(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, mpi::compute()),
        "MPI_Gather");
  std::vector<char> all;
  if (rank_ == 0) {
    size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<size_t>(r)] = as_count(total, "the ranks' reports");
      total += static_cast<size_t>(lengths[static_cast<size_t>(r)]);
    }
    all.resize(total);
  }
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                    MPI_CHAR, 0, mpi::compute()),
        "MPI_Gatherv");
  std::vector<std::string> texts;
  if (rank_ != 0) return texts;
  for (int r = 0; r < size_; ++r) {
    texts.emplace_back(all.data() + offsets[static_cast<size_t>(r)],
                       static_cast<size_t>(lengths[static_cast<size_t>(r)]));
  }
  return texts;
}

void Comm::gather_slices_to_root(void* values, size_t elem_bytes) {
  if (size_ == 1) return;
  Timer t;
  std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    counts[static_cast<size_t>(r)] = as_count(end(r) - first(r), "gathering a result");
    offsets[static_cast<size_t>(r)] = as_count(first(r), "gathering a result");
  }
  const ValueType type(elem_bytes);
  auto* bytes = static_cast<std::byte*>(values);
  if (rank_ == 0) {
    check(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, values, counts.data(), offsets.data(),
                      type.get(), 0, mpi::compute()),
          "MPI_Gatherv");
  } else {
    check(MPI_Gatherv(bytes + first(rank_) * elem_bytes, counts[static_cast<size_t>(rank_)],
                      type.get(), nullptr, nullptr, nullptr, type.get(), 0, mpi::compute()),
          "MPI_Gatherv");
    add({.bytes_sent = (end(rank_) - first(rank_)) * elem_bytes, .messages = 1});
  }
  add({.communication_seconds = t.seconds()});
}

std::vector<std::byte> Comm::allgather(const void* mine, size_t bytes) {
  std::vector<std::byte> all(bytes * static_cast<size_t>(size_));
  if (size_ == 1) {
    std::memcpy(all.data(), mine, bytes);
    return all;
  }
  Timer t;
  check(MPI_Allgather(mine, as_count(bytes, "allgather"), MPI_BYTE, all.data(),
                      static_cast<int>(bytes), MPI_BYTE, mpi::compute()),
        "MPI_Allgather");
  add({.bytes_sent = bytes * static_cast<uint64_t>(size_ - 1),
       .messages = static_cast<uint64_t>(size_ - 1),
       .communication_seconds = t.seconds()});
  return all;
}

void Comm::allreduce(void* values, size_t count_of, Scalar type, ReduceOp op) {
  if (size_ == 1) return;
  Timer t;
  check(MPI_Allreduce(MPI_IN_PLACE, values, as_count(count_of, "merging a vertex array"),
                      datatype_of(type), op_of(op), mpi::compute()),
        "MPI_Allreduce");
  const uint64_t bytes = count_of * bytes_of(type);
  add({.bytes_sent = bytes,
       .messages = static_cast<uint64_t>(size_ - 1),
       .communication_seconds = t.seconds()});
}

namespace {
constexpr int kShiftTag = 0x7467;        // a shift's messages ("tg")
constexpr size_t kShiftPiece = 1 << 30;  // bytes a message of a shift carries at most
}  // namespace

uint64_t Comm::shift_size(uint64_t mine, int to, int from) {
  uint64_t theirs = 0;
  check(MPI_Sendrecv(&mine, 1, MPI_UINT64_T, to, kShiftTag, &theirs, 1, MPI_UINT64_T, from,
                     kShiftTag, mpi::compute(), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  return theirs;
}

// Every piece posted at once, received and sent; each side knows both sizes, so both count the
// same pieces in each direction.
void Comm::shift_bytes(const void* send, size_t send_bytes, int to, void* receive,
                       size_t receive_bytes, int from) {
  Timer t;
  std::vector<MPI_Request> requests;
  requests.reserve((receive_bytes + kShiftPiece - 1) / kShiftPiece +
                   (send_bytes + kShiftPiece - 1) / kShiftPiece);
  for (size_t at = 0; at < receive_bytes; at += kShiftPiece) {
    requests.emplace_back();
    check(MPI_Irecv(static_cast<std::byte*>(receive) + at,
                    static_cast<int>(std::min(kShiftPiece, receive_bytes - at)), MPI_BYTE, from,
                    kShiftTag, mpi::compute(), &requests.back()),
          "MPI_Irecv");
  }
  uint64_t messages = 0;
  for (size_t at = 0; at < send_bytes; at += kShiftPiece, ++messages) {
    requests.emplace_back();
    check(MPI_Isend(static_cast<const std::byte*>(send) + at,
                    static_cast<int>(std::min(kShiftPiece, send_bytes - at)), MPI_BYTE, to,
                    kShiftTag, mpi::compute(), &requests.back()),
          "MPI_Isend");
  }
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  add({.bytes_sent = to == rank_ ? 0 : send_bytes,
       .messages = to == rank_ ? 0 : messages,
       .communication_seconds = t.seconds()});
}

std::vector<std::byte> Comm::exchange(const std::byte* send, size_t stride,
                                      const std::vector<size_t>& counts, bool more, bool& any_more,
                                      std::vector<size_t>& from) {
  const auto n = static_cast<size_t>(size_);
  from.assign(n + 1, 0);
  any_more = false;
  if (size_ == 1) return {};
  Timer wait;
  // Per peer: how many bytes, and whether this rank has more after them.
  std::vector<int> send_heads(2 * n), receive_heads(2 * n), send_counts(n), receive_counts(n),
      send_offsets(n), receive_offsets(n);
  uint64_t total = 0, messages = 0;
  for (size_t r = 0; r < n; ++r) {
    const size_t bytes = r == static_cast<size_t>(rank_) ? 0 : counts[r];
    send_counts[r] = as_count(bytes, "a pass's updates");
    send_offsets[r] = as_count(r * stride, "a pass's updates");
    send_heads[2 * r] = send_counts[r];
    send_heads[2 * r + 1] = more ? 1 : 0;
    total += bytes;
    messages += bytes ? 1 : 0;
  }
  // The heads are a few bytes: their exchange returns when the slowest rank arrives.
  check(
      MPI_Alltoall(send_heads.data(), 2, MPI_INT, receive_heads.data(), 2, MPI_INT, mpi::compute()),
      "MPI_Alltoall");
  add({.wait_seconds = wait.seconds()});
  Timer t;
  for (size_t r = 0; r < n; ++r) {
    receive_counts[r] = receive_heads[2 * r];
    any_more = any_more || receive_heads[2 * r + 1] != 0 || more;
    from[r + 1] = from[r] + static_cast<size_t>(receive_counts[r]);
    receive_offsets[r] = as_count(from[r], "a pass's updates");
  }
  std::vector<std::byte> received(from[n]);
  check(MPI_Alltoallv(send, send_counts.data(), send_offsets.data(), MPI_BYTE, received.data(),
                      receive_counts.data(), receive_offsets.data(), MPI_BYTE, mpi::compute()),
        "MPI_Alltoallv");
  add({.bytes_sent = total, .messages = messages, .communication_seconds = t.seconds()});
  note_buffer(n * stride + received.size());
  return received;
}

void check_same_graph(uint64_t file_bytes, uint64_t header_checksum, const char* path) {
  if (mpi::size() == 1) return;
  const uint64_t mine[2] = {file_bytes, header_checksum};
  std::vector<uint64_t> all(2 * static_cast<size_t>(mpi::size()));
  check(MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, mpi::compute()),
        "MPI_Allgather");
  // Each rank whose file is not rank 0's says so, naming its own; under mpi::agree the job is
  // told each once.
  if (mpi::rank() == 0 || (file_bytes == all[0] && header_checksum == all[1])) return;
  fail(
      "rank {} opened '{}' ({} bytes, header checksum {:016x}) where rank 0's file has {} bytes, "
      "header checksum "
      "{:016x}: every rank must read the same file",
      mpi::rank(), path, file_bytes, header_checksum, all[0], all[1]);
}

}  // namespace tg::mpi
