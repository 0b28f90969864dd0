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
// mkstemp, registered to remove on interrupt with no moment between the two: the name is
// registered before the file exists (mkstemp then registration left a window in which a
// signal found the file unregistered). `path_template` ends in XXXXXX, replaced by the name's
// random part; returns the open descriptor, or -1 with errno set.
int create_temporary_file(std::string& path_template);

}  // namespace tg
