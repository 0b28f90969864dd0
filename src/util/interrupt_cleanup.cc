#include "util/interrupt_cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

namespace tg {
namespace {

// Lock-free slots, so the handler (which may interrupt a registration) reads only whole paths:
// a path is copied to the heap before it is published, and unpublished before it is freed.
constexpr size_t kSlots = 64;
std::array<std::atomic<char*>, kSlots> slots{};

extern "C" void on_interrupt(int signal_number) {
  for (auto& slot : slots) {
    if (char* path = slot.load(std::memory_order_acquire)) ::unlink(path);  // async-signal-safe
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void install_interrupt_cleanup() {
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(s, &action, nullptr);
  }
}

bool remove_on_interrupt(const std::string& path) {
  char* copy = ::strdup(path.c_str());
  if (copy == nullptr) return false;
  for (auto& slot : slots) {
    char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, copy, std::memory_order_acq_rel)) return true;
  }
  std::free(copy);
  return false;
}

void forget_on_interrupt(const std::string& path) {
  for (auto& slot : slots) {
    char* p = slot.load(std::memory_order_acquire);
    if (p != nullptr && path == p &&
        slot.compare_exchange_strong(p, nullptr, std::memory_order_acq_rel)) {
      std::free(p);
      return;
    }
  }
}

int create_temporary_file(std::string& path_template) {
  constexpr std::string_view kX = "XXXXXX";
  if (path_template.size() < kX.size() ||
      path_template.compare(path_template.size() - kX.size(), kX.size(), kX) != 0) {
    errno = EINVAL;
    return -1;
  }
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device device;
  std::mt19937_64 rng((uint64_t{device()} << 32) ^ device() ^ static_cast<uint64_t>(::getpid()));
  for (int attempt = 0; attempt < 1000; ++attempt) {
    for (size_t k = path_template.size() - kX.size(); k < path_template.size(); ++k) {
      path_template[k] = kLetters[rng() % (sizeof(kLetters) - 1)];
    }
    const bool registered = remove_on_interrupt(path_template);  // before the file exists
    const int fd = ::open(path_template.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    const int error = errno;
    if (registered) forget_on_interrupt(path_template);
    if (error != EEXIST) {
      errno = error;
      return -1;
    }
  }
  errno = EEXIST;
  return -1;
}

}  // namespace tg
