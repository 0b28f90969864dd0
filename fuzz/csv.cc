// Fuzz target: CSV and TSV (one delimiter; fields trimmed; header line optional, sniffed or set;
// columns by number or by header name). Options: the delimiter, --header, --no-header or the sniff,
// the columns and the id mode.
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  tg::ParseOptions parse;
  parse.format = in.flag() ? "tsv" : "csv";
  if (const unsigned h = in.take(2)) parse.header = h == 1;
  // Default columns, numbers (reordered, with a weight, out of range) and header names.
  static const std::vector<std::vector<std::string>> columns = {{},
                                                                {"1", "0"},
                                                                {"0", "1", "2"},
                                                                {"0", "1", "3"},
                                                                {"src", "dst"},
                                                                {"src", "dst", "w"},
                                                                {"0", "dst", "2"},
                                                                {"0"}};
  parse.columns = columns[in.take(3)];
  parse.id_mode = tg::fuzz::take_id_mode(in);
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
