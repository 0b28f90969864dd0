#include "util/interrupt_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>

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
    if (p != nullptr && path == p && slot.compare_exchange_strong(p, nullptr, std::memory_order_acq_rel)) {
      std::free(p);
      return;
    }
  }
}

}  // namespace tg
