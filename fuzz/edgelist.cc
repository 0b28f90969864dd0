// Fuzz target: plain/SNAP edge lists (`u v` or `u v w` separated by spaces and tabs; `#` and `%`
// comments; CRLF). Options: the format named or sniffed from the content (the sniff can also pick
// another reader), the id mode and a --vertices count.
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  tg::ParseOptions parse;
  parse.format = in.flag() ? "auto" : "edgelist";
  parse.id_mode = tg::fuzz::take_id_mode(in);
  constexpr uint64_t kVertices[] = {0, 5, UINT64_MAX};  // none (the default) or one of these
  if (const unsigned k = in.take(2)) parse.vertices = kVertices[k - 1];
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
