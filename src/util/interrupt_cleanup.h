// Temporary files that must not outlive an interrupted process: an output being written under
// its temporary name, a graph converted on the fly. A handler for SIGINT, SIGTERM and SIGHUP
// unlinks every file registered at that moment, then lets the signal end the process as it
// would have (same status), so Ctrl-C during `convert` leaves no OUT.tmp-XXXXXX behind.
#pragma once

#include <string>

namespace tg {

// Installs the handler (once, from main before any work).
void install_interrupt_cleanup();
// Registers a file to remove if the process is interrupted; false when all slots are taken
// (the file is then only removed by its owner, as before).
bool remove_on_interrupt(const std::string& path);
// The file was committed or removed by its owner: forget it.
void forget_on_interrupt(const std::string& path);

}  // namespace tg
