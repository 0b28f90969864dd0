// Temporary files registered for removal: created and registered at once, unlinked by the
// handler when the process is interrupted, and the process still ends with the signal's status.
#include "util/interrupt_cleanup.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "test_graphs.h"

namespace tg {
namespace {

TEST(InterruptCleanup, CreatesUniqueFilesFromATemplate) {
  std::string a = testing::temp_path("unique.tmp-XXXXXX"), b = a;
  const int fa = create_temporary_file(a), fb = create_temporary_file(b);
  ASSERT_GE(fa, 0);
  ASSERT_GE(fb, 0);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find("XXXXXX"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(a) && std::filesystem::exists(b));
  close(fa);
  close(fb);
  forget_on_interrupt(a);
  forget_on_interrupt(b);
  std::string bad = testing::temp_path("no-template");
  EXPECT_EQ(create_temporary_file(bad), -1);
  EXPECT_EQ(errno, EINVAL);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TG_UNDER_TSAN 1
#endif
#endif

TEST(InterruptCleanup, AnInterruptedProcessLeavesNoTemporary) {
#ifdef TG_UNDER_TSAN
  // Its signal handling does not run in a child forked from a multithreaded process (the suite's
  // earlier tests leave OpenMP threads); the release and ASan builds run this test, and the
  // pytest interrupt tests signal the real binary in every build.
  GTEST_SKIP()
      << "ThreadSanitizer does not deliver signals in a child forked from a multithreaded process";
#endif
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // the child: a temporary, then the signal, as a user's Ctrl-C would
      install_interrupt_cleanup();
      std::string path = testing::temp_path("interrupted.tmp-XXXXXX");
      if (create_temporary_file(path) < 0) _exit(2);
      if (write(pipe_fds[1], path.c_str(), path.size()) != static_cast<ssize_t>(path.size()))
        _exit(3);
      close(pipe_fds[1]);
      raise(sig);
      _exit(4);  // not reached: the handler ends the process with the signal
    }
    close(pipe_fds[1]);
    char buffer[4096] = {};
    const ssize_t got = read(pipe_fds[0], buffer, sizeof(buffer) - 1);
    close(pipe_fds[0]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_GT(got, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
        << "signal " << sig << ", status " << status;
    EXPECT_FALSE(std::filesystem::exists(std::string(buffer, static_cast<size_t>(got))))
        << "signal " << sig;
  }
}

}  // namespace
}  // namespace tg
