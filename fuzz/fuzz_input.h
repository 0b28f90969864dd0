// What the text-reader fuzz targets share: option bits taken from the input, the input handed to
// the real reader as a file, and the run itself (read, then check what the reader promises).
//
// Every target's input is one option byte followed by the file's bytes. The option byte lets one
// target cover its reader's option space (format variant, id mode, header, columns) while
// libFuzzer mutates it like any other byte; the corpora under fuzz/corpus/ use this layout.
//
// The targets parse only. Building the graph file as well (convert_edge_list) was measured at
// about 10 ms per input, far below the ~1000 runs per second that fuzzing needs: its section
// checksums zero a large buffer however small the graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ingest/parse.h"

namespace tg::fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size);
  // The next `bits` option bits (low bits first) as 0 .. 2^bits - 1; zeros once all 8 are used.
  unsigned take(int bits);
  bool flag() { return take(1) != 0; }
  std::span<const uint8_t> text() const { return text_; }

 private:
  unsigned bits_ = 0;
  std::span<const uint8_t> text_;
};

// Two bits: the format's default id mode, index, or label.
std::optional<IdMode> take_id_mode(Input& in);

// Writes `bytes` to this process's input file (on tmpfs where there is one, rewritten for each
// input) and returns its path, which the readers open like any file named on the command line.
// The name has no extension: the format comes from ParseOptions or from the content.
const std::string& as_file(std::span<const uint8_t> bytes);

// Reads the text with read_edge_list as `tiergraph convert` does and checks what the reader
// promises about the edge list it returns. A tg::Error is the expected outcome of a bad input and
// ends the run quietly; any other exception, and any broken promise, is a crash for libFuzzer to
// report.
void read_and_check(std::span<const uint8_t> text, const ParseOptions& parse);

}  // namespace tg::fuzz
