#include "store/far_rank.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "mpi/communicators.h"
#include "mpi/mpi_runtime.h"
#include "mpi/types.h"
#include "store/far_rank_pair.h"
#include "util/error.h"
#include "util/memory.h"
#include "util/read_at.h"

namespace tg {

namespace far_rank {

void check(int code, const char* call) { mpi::check(code, "far-memory rank", call); }

int pair_rank() {
  int r = -1;
  MPI_Comm_rank(mpi::far_pair(), &r);
  return r;
}

int pair_size() {
  int s = 0;
  MPI_Comm_size(mpi::far_pair(), &s);
  return s;
}

namespace {
int translate(MPI_Comm from, int rank, MPI_Comm to) {
  MPI_Group a, b;
  MPI_Comm_group(from, &a);
  MPI_Comm_group(to, &b);
  int translated = MPI_UNDEFINED;
  MPI_Group_translate_ranks(a, 1, &rank, b, &translated);
  MPI_Group_free(&a);
  MPI_Group_free(&b);
  return translated;
}

// The processes of this machine (those that can share memory), a new communicator.
MPI_Comm machine() {
  MPI_Comm c = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c),
        "MPI_Comm_split_type");
  return c;
}
}  // namespace

int in_world(int rank_in_pair) { return translate(mpi::far_pair(), rank_in_pair, MPI_COMM_WORLD); }

std::vector<unsigned char> share_slots(const GraphFile& file, std::vector<unsigned char> slots) {
  const uint64_t p = file.blocks_per_side();
  uint64_t count = (file.directed() ? 2 : 1) * p * p;
  if (pair_rank() == kOrigin && slots.size() != count)
    fail("internal: {} far slots for {} blocks", slots.size(), count);
  slots.resize(count);
  check(
      MPI_Bcast(slots.data(), static_cast<int>(count), MPI_UNSIGNED_CHAR, kOrigin, mpi::far_pair()),
      "MPI_Bcast");
  return slots;
}

Window open_window(uint64_t bytes, bool in_place) {
  Window w;
  const auto size = static_cast<MPI_Aint>(bytes);
  if (in_place) {
    MPI_Comm here = machine();
    // Each process's part is its own allocation (on the NUMA node it first touches it from).
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    const int code =
        MPI_Win_allocate_shared(size, 1, info, here, static_cast<void*>(&w.own), &w.win);
    MPI_Info_free(&info);
    w.server = translate(mpi::far_pair(), kServer, here);
    MPI_Comm_free(&here);  // the window keeps what it needs
    check(code, "MPI_Win_allocate_shared");
    if (w.server == MPI_UNDEFINED)
      fail("internal: the far-memory rank is not on this machine, and its window is shared memory");
    MPI_Aint server_bytes = 0;
    int unit = 1;
    check(MPI_Win_shared_query(w.win, w.server, &server_bytes, &unit,
                               static_cast<void*>(&w.server_base)),
          "MPI_Win_shared_query");
  } else {
    check(MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, static_cast<void*>(&w.own),
                           &w.win),
          "MPI_Win_allocate");
    w.server = in_world(kServer);
  }
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.win), "MPI_Win_lock_all");
  return w;
}

void close_window(Window& w) {
  if (w.win == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(w.win);
  MPI_Win_free(&w.win);
}

}  // namespace far_rank

using namespace far_rank;

void check_far_rank_file(const GraphFile& file) {
  // Each side sends what identifies its file: size, header checksum, and the path (for the
  // message).
  const uint64_t mine[2] = {file.file_bytes(), file.header().header_checksum};
  uint64_t theirs[2] = {0, 0};
  const int peer = pair_rank() == kOrigin ? kServer : kOrigin;
  check(MPI_Sendrecv(mine, 2, MPI_UINT64_T, peer, kFileTag, theirs, 2, MPI_UINT64_T, peer, kFileTag,
                     mpi::far_pair(), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  const std::string& path = file.path();
  const uint64_t length = path.size();
  uint64_t their_length = 0;
  check(MPI_Sendrecv(&length, 1, MPI_UINT64_T, peer, kFileTag, &their_length, 1, MPI_UINT64_T, peer,
                     kFileTag, mpi::far_pair(), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  std::string their_path(their_length, '\0');
  check(MPI_Sendrecv(path.data(), static_cast<int>(length), MPI_CHAR, peer, kFileTag,
                     their_path.data(), static_cast<int>(their_length), MPI_CHAR, peer, kFileTag,
                     mpi::far_pair(), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  if (mine[0] == theirs[0] && mine[1] == theirs[1]) return;
  // Both ranks of the pair give the same message, told once (mpi::agree), from the computing
  // rank's side.
  const bool serving = pair_rank() == kServer;
  const auto describe = [](const std::string& p, const uint64_t* id) {
    return fmt::format("'{}' ({} bytes, header checksum {:016x})", p, id[0], id[1]);
  };
  fail(
      "the far-memory rank (world rank {}) opened {} where its computing rank (world rank {}) "
      "opened {}: a far rank "
      "must read the very graph file its computing rank reads (the same path on a shared file "
      "system, or an identical "
      "copy)",
      in_world(kServer), serving ? describe(path, mine) : describe(their_path, theirs),
      in_world(kOrigin), serving ? describe(their_path, theirs) : describe(path, mine));
}

bool far_rank_reads_in_place(bool allowed) {
  MPI_Comm here = machine();
  const int partner = in_world(pair_rank() == kOrigin ? kServer : kOrigin);
  int yes = allowed && translate(MPI_COMM_WORLD, partner, here) != MPI_UNDEFINED ? 1 : 0;
  // And the one-sided component can make shared windows (osc ucx, for one, cannot): a probe, made
  // by every process of the machine alike.
  MPI_Comm_set_errhandler(here, MPI_ERRORS_RETURN);
  MPI_Win probe = MPI_WIN_NULL;
  unsigned char* base = nullptr;
  if (MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, here, static_cast<void*>(&base), &probe) ==
      MPI_SUCCESS) {
    MPI_Win_free(&probe);
  } else {
    yes = 0;
  }
  MPI_Comm_free(&here);
  check(MPI_Allreduce(MPI_IN_PLACE, &yes, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return yes == 1;
}

FarLayout far_layout(const GraphFile& file, const std::vector<unsigned char>& far_slots) {
  constexpr uint64_t kAlign = 64;
  FarLayout layout;
  const uint32_t p = file.blocks_per_side();
  uint64_t slot = 0;
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file.directed()) break;
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j, ++slot) {
        if (!far_slots[slot]) continue;
        const auto& e = file.entry(g, i, j);
        const uint64_t bytes = format::part_positions(e.part_bytes).end;
        if (bytes == 0) continue;
        layout.extents.push_back({{g, i, j}, e.offset, layout.bytes, bytes});
        layout.bytes = format::align_up(layout.bytes + bytes, kAlign);
      }
  }
  std::sort(layout.extents.begin(), layout.extents.end(),
            [](const auto& a, const auto& b) { return a.file_offset < b.file_offset; });
  return layout;
}

void serve_far_blocks(const GraphFile& file, bool in_place) {
  const auto slots = share_slots(file, {});
  const FarLayout layout = far_layout(file, slots);
  Window window = open_window(std::max<uint64_t>(layout.bytes, 1), in_place);
  unsigned char* memory = window.own;
  // Read the far blocks into the window; a failure is reported and ends the job.
  std::string problem;
  const int fd = ::open(file.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    problem =
        fmt::format("far-memory rank: cannot open '{}': {}", file.path(), std::strerror(errno));
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < layout.extents.size(); ++k) {
    if (fd < 0) continue;
    const auto& x = layout.extents[k];
    if (const auto failed = read_at(fd, memory + x.window_offset, x.bytes, x.file_offset)) {
#pragma omp critical(tg_far_rank)
      problem = fmt::format("far-memory rank: reading '{}' at offset {} failed: {}", file.path(),
                            failed->offset, failed->reason);
    }
  }
  if (fd >= 0) ::close(fd);
  if (!problem.empty()) fail("{}", problem);
  // The blocks are in place: say so, with what holding them cost (the far tier's memory, which
  // the computing rank reports; this rank prints nothing). The sync orders the writes before
  // the message for a reader that loads them in place.
  check(MPI_Win_sync(window.win), "MPI_Win_sync");
  uint64_t peak = peak_rss_bytes();
  check(MPI_Send(&peak, 1, MPI_UINT64_T, kOrigin, kLoadedTag, mpi::far_pair()), "MPI_Send");
  mpi::wait_for_message(kOrigin, kDoneTag);  // serve until rank 0 is done
  close_window(window);
}

}  // namespace tg
