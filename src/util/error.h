// Errors tiergraph reports to its user. Library code never prints: it throws tg::Error with a
// message that names the place (file, line, column, section) and what was expected; the CLI
// prints it on stderr and exits non-zero.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace tg {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error that another process of the job reports (an MPI rank whose peer found it): this
// process ends the job without printing it a second time.
class ReportedElsewhere : public Error {
 public:
  using Error::Error;
};

// An error every process of an MPI job has agreed on (mpi::agree): printed once, by this
// process, and every process leaves normally, so no abort is needed to end the others.
class JobError : public Error {
 public:
  using Error::Error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace tg
