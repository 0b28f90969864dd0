// tiergraph._core: the C++ engine as Python sees it. Kept thin on purpose: graphs are graph files
// (opened, converted, generated or built from arrays), and algorithms run through the same
// request and report as `tiergraph run` (run/run_algorithm.h). Everything Pythonic (argument
// checking, labels, networkx) lives in the pure-Python package around it.
//
// The GIL is released while C++ works; after every edge pass the run takes it back for a moment
// to let Python see a pending Ctrl-C, which ends the run by unwinding out of the engine.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph_file.h"
#include "ingest/convert.h"
#include "ingest/generate.h"
#include "run/build_request.h"
#include "run/kernels.h"
#include "run/run_algorithm.h"
#include "run/threads.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt_cleanup.h"
#include "util/log.h"
#include "util/option_names.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// An open graph file, shared by every Python object that refers to it.
struct GraphHandle {
  std::shared_ptr<const tg::GraphFile> file;
};

// Raised inside a run when Python has a pending KeyboardInterrupt; turned back into it once the
// GIL is held again.
struct Interrupted {};

template <typename T>
using Array1 = nb::ndarray<nb::numpy, T, nb::ndim<1>>;
template <typename T>
using InArray = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A numpy array that owns `values` (no copy).
template <typename T>
Array1<T> to_numpy(std::vector<T>&& values) {
  auto* held = new std::vector<T>(std::move(values));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return Array1<T>(held->data(), {held->size()}, owner);
}

// Raises one of the package's error classes (tiergraph.errors: InvalidInput is also a ValueError,
// InvalidType a TypeError), so a bad keyword is caught as numpy or networkx code would catch it.
[[noreturn]] void raise_package_error(const char* kind, const std::string& message) {
  nb::object cls = nb::module_::import_("tiergraph.errors").attr(kind);
  PyErr_SetString(cls.ptr(), message.c_str());
  throw nb::python_error();
}

// `name`: how messages name the graph (a scratch file's path means nothing to the user).
std::shared_ptr<const tg::GraphFile> open_scratch_graph(const std::string& path,
                                                        const std::string& name) {
  auto g = tg::GraphFile::open(path, {.name = name});
  std::filesystem::remove(path);  // the mapping keeps the data alive
  return g;
}

// The edge list the builder takes, filled from parallel id (and weight) arrays.
template <typename Id, typename W>
tg::EdgeList edge_list_of(const uint64_t* src, const uint64_t* dst, const double* weights,
                          size_t m) {
  tg::EdgeArray<Id, W> edges(m);
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < m; ++k) {
    edges[k].u = static_cast<Id>(src[k]);
    edges[k].v = static_cast<Id>(dst[k]);
    if constexpr (!std::is_same_v<W, tg::NoWeight>) edges[k].w = weights[k];
  }
  tg::EdgeList list;
  list.edges = std::move(edges);
  if (weights)
    for (size_t k = 0; k < m; ++k) list.weight_info.add(weights[k]);
  return list;
}

// Builds a graph file from edge arrays (ids 0..n-1) in `scratch_dir` and opens it; the file is
// unlinked at once, so nothing is left behind whatever happens next.
GraphHandle graph_from_edges(const InArray<uint64_t>& src, const InArray<uint64_t>& dst,
                             const std::optional<InArray<double>>& weights, uint64_t num_vertices,
                             bool directed, bool keep_self_loops, bool keep_duplicates,
                             uint32_t blocks, const std::string& scratch_dir, int threads,
                             const std::string& name) {
  const size_t m = src.shape(0);
  if (dst.shape(0) != m || (weights && weights->shape(0) != m))
    throw tg::Error("edge arrays differ in length");
  const uint64_t* s = src.data();
  const uint64_t* d = dst.data();
  const double* w = weights ? weights->data() : nullptr;
  std::string temp = (std::filesystem::path(scratch_dir) / "tiergraph-edges-XXXXXX").string();
  nb::gil_scoped_release release;
  tg::run::apply_threads(threads);
  for (size_t k = 0; k < m;
       ++k) {  // the Python side checks too; the builder must never see a bad id
    if (s[k] >= num_vertices || d[k] >= num_vertices) {
      tg::fail("edge {} ({} -> {}) names a vertex outside 0..{}", k, s[k], d[k], num_vertices - 1);
    }
  }
  const bool wide = num_vertices > std::numeric_limits<uint32_t>::max();
  tg::EdgeList list = wide ? (w ? edge_list_of<uint64_t, double>(s, d, w, m)
                                : edge_list_of<uint64_t, tg::NoWeight>(s, d, w, m))
                           : (w ? edge_list_of<uint32_t, double>(s, d, w, m)
                                : edge_list_of<uint32_t, tg::NoWeight>(s, d, w, m));
  list.declared_vertices = num_vertices;
  list.id_mode = tg::IdMode::kIndex;
  list.source_name = "arrays";
  tg::ConvertOptions options;
  options.build.undirected = !directed;
  options.build.keep_self_loops = keep_self_loops;
  options.build.keep_duplicates = keep_duplicates;
  options.build.blocks = blocks;
  options.overwrite = true;  // the name is our own fresh temporary file
  const int fd = tg::create_temporary_file(temp);
  if (fd < 0)
    tg::fail("cannot create a temporary file in '{}': {}", scratch_dir, std::strerror(errno));
  close(fd);
  try {
    tg::convert_edge_list(std::move(list), temp, options);
    return GraphHandle{open_scratch_graph(temp, name)};
  } catch (...) {
    std::filesystem::remove(temp);
    throw;
  }
}

// What a keyword's C++ type asks of its Python value, for the message when it does not fit.
template <typename T>
struct Unwrapped {
  using type = T;
};
template <typename T>
struct Unwrapped<std::optional<T>> {
  using type = T;
};
template <typename Given, typename T = typename Unwrapped<Given>::type>
constexpr const char* wanted_type() {
  if constexpr (std::is_same_v<T, bool>)
    return "True or False";
  else if constexpr (std::is_integral_v<T>)
    return "an int";
  else if constexpr (std::is_floating_point_v<T>)
    return "a number";
  else if constexpr (std::is_same_v<T, std::string>)
    return "a str";
  else
    return "a list of ints";
}

// A string, number or flag option from Python's keyword arguments, as the CLI would take it. A
// value of the wrong type is InvalidType naming the keyword (nanobind's own cast error says only
// "std::bad_cast"); the package checks the keywords it documents before they get here.
template <typename T>
void take(const nb::dict& options, const char* key, T& into) {
  if (!options.contains(key)) return;
  nb::handle value = options[key];
  // nanobind takes True for an int and 1 for a bool; neither is what the user meant.
  const bool is_bool = PyBool_Check(value.ptr());
  if constexpr (std::is_same_v<T, bool>) {
    if (is_bool) {
      into = value.ptr() == Py_True;
      return;
    }
  } else if constexpr (std::is_arithmetic_v<typename Unwrapped<T>::type>) {
    if (is_bool) value = nb::handle();  // refused below
  }
  if (value.is_valid() && nb::try_cast<T>(value, into)) return;
  const nb::handle shown = options[key];
  raise_package_error("InvalidType", std::string(key) + " must be " + wanted_type<T>() + ", got " +
                                         nb::cast<std::string>(nb::repr(shown)) + " (" +
                                         nb::cast<std::string>(nb::type_name(shown.type())) + ")");
}

// One of a run choice's names (run/choices.h), kept as its enum: a word that names none is
// InvalidInput, as the request's other checks are.
template <typename E>
void take_choice(const nb::dict& options, const char* key, E& into) {
  std::string word(tg::run::choice_name(into));
  take(options, key, word);
  try {
    into = tg::run::parse_choice<E>(key, word);
  } catch (const tg::Error& e) {
    raise_package_error("InvalidInput", e.what());
  }
}

nb::dict run(const std::shared_ptr<const tg::GraphFile>& file, const std::string& algorithm,
             const nb::dict& o) {
  tg::run::RunRequest r;
  r.algorithm = algorithm;
  r.progress = false;
  take(o, "threads", r.threads);
  take(o, "trials", r.trials);
  take(o, "verify", r.verify);
  take(o, "parents", r.parents);
  take(o, "unit_weights", r.unit_weights);
  take(o, "source", r.source);
  take(o, "sources", r.sources);
  if (o.contains("samples") && !o["samples"].is_none()) {
    take(o, "samples", r.samples);
    r.samples_given = true;
  }
  take(o, "seed", r.seed);
  take_choice(o, "direction", r.direction);
  take_choice(o, "schedule", r.schedule);
  take_choice(o, "store", r.store);
  take(o, "delta", r.delta);
  take(o, "damping", r.damping);
  take_choice(o, "precision", r.precision);
  take(o, "tolerance", r.tolerance);
  if (o.contains("iterations") && !o["iterations"].is_none()) {
    take(o, "iterations", r.iterations);
    r.iterations_given = true;
  }
  take(o, "max_iterations", r.iterations);  // with a tolerance: the cap (networkx's max_iter)
  if (o.contains("max_iterations")) r.iterations_given = true;
  take(o, "pass_stats", r.pass_stats);
  take(o, "memory_budget", r.budget.memory_budget);
  if (o.contains("far_ratio")) {
    double ratio = 0;
    take(o, "far_ratio", ratio);
    r.budget.far_ratio = ratio;
  }
  if (o.contains("far")) {
    take_choice(o, "far", r.budget.far);
    r.far_given = true;
  }
  if (o.contains("far_node")) {
    int node = 0;
    take(o, "far_node", node);
    r.budget.far_node = node;
  }
  take(o, "profile", r.budget.profile);
  // The request's own checks, before the run: a bad value is the caller's (InvalidInput, also a
  // ValueError), where a failure inside the run (a corrupt block) stays a plain tiergraph.Error.
  try {
    tg::run::check_run_request(r);
  } catch (const tg::Error& e) {
    raise_package_error("InvalidInput", e.what());
  }
  r.after_pass = [] {
    nb::gil_scoped_acquire hold;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      throw Interrupted{};
    }
  };
  tg::run::RunOutcome out;
  try {
    nb::gil_scoped_release release;
    out = tg::run::run_algorithm(r, file);
  } catch (const Interrupted&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw nb::python_error();
  }
  tg::AlgorithmResult& result = out.trials.back().result;
  nb::dict d;
  if (result.real) {
    d["values"] = to_numpy(std::move(result.reals));
  } else {
    d["values"] = to_numpy(std::move(result.ints));
  }
  d["values_are_vertices"] = result.values_are_vertices;
  if (!result.parents.empty()) d["parents"] = to_numpy(std::move(result.parents));
  if (out.trials.back().source) d["source"] = *out.trials.back().source;
  d["verified"] = out.all_verified;
  d["report"] = out.report.dump();
  return d;
}

std::string convert(const std::string& input, const std::string& output, const nb::dict& o) {
  tg::run::GraphInputArgs a;
  take(o, "format", a.format);
  take(o, "ids", a.ids);
  take(o, "columns", a.columns);
  take(o, "header", a.header);
  take(o, "no_header", a.no_header);
  take(o, "undirected", a.undirected);
  take(o, "keep_self_loops", a.keep_self_loops);
  take(o, "keep_duplicates", a.keep_duplicates);
  take(o, "weights", a.weights);
  take(o, "weight_seed", a.weight_seed);
  take(o, "blocks", a.blocks);
  take(o, "vertices", a.vertices);
  tg::ConvertOptions options = tg::run::make_convert_options(a);
  options.parse.progress = options.build.progress = false;
  take(o, "overwrite", options.overwrite);
  // As `convert`: within memory_budget when given, else in memory unless that would take more
  // than half of the memory this process may use.
  tg::run::BuildBudgetArgs budget;
  take(o, "memory_budget", budget.memory_budget);
  take(o, "scratch", budget.scratch);
  tg::run::apply_build_budget(budget, tg::run::in_memory_convert_bytes(input), options);
  nb::gil_scoped_release release;
  omp_set_num_threads(omp_get_num_procs());  // a run on a small graph may have asked for fewer
  return tg::convert_file(input, output, options).to_json().dump();
}

std::string generate(const std::string& output, const std::string& kind, int scale, int edge_factor,
                     uint64_t seed, const std::string& weights, bool undirected, uint32_t blocks,
                     bool overwrite, const std::string& memory_budget, const std::string& scratch) {
  tg::GeneratorOptions gen;
  if (kind != "kronecker" && kind != "uniform")
    tg::fail("kind must be 'kronecker' or 'uniform', got '{}'", kind);
  if (scale < 1 || scale > 40) tg::fail("scale must be between 1 and 40, got {}", scale);
  if (edge_factor < 1) tg::fail("edge_factor must be at least 1, got {}", edge_factor);
  if (weights != "" && weights != "int" && weights != "real")
    tg::fail("weights must be None, 'int' or 'real', got '{}'", weights);
  gen.kind = kind == "kronecker" ? tg::GeneratorKind::kKronecker : tg::GeneratorKind::kUniform;
  gen.scale = scale;
  gen.edge_factor = edge_factor;
  gen.seed = seed;
  gen.weights = weights == "int"    ? tg::GeneratedWeights::kInteger
                : weights == "real" ? tg::GeneratedWeights::kReal
                                    : tg::GeneratedWeights::kNone;
  tg::ConvertOptions options;
  options.build.undirected = undirected;
  options.build.blocks = blocks;
  options.build.generated_weights = gen.weights != tg::GeneratedWeights::kNone;
  options.overwrite = overwrite;
  // As `generate`: streamed into the bounded build within memory_budget when given, else in
  // memory unless that would take more than half of the memory this process may use.
  tg::run::apply_build_budget({memory_budget, scratch},
                              tg::run::in_memory_generate_bytes(gen, undirected), options);
  nb::gil_scoped_release release;
  omp_set_num_threads(omp_get_num_procs());
  return tg::generate_file(gen, output, options).to_json().dump();
}

// The out-neighbours of vertex v (dense ids, in the out grid's column order): v's row of blocks,
// each block's arcs of v. A DCSR block lists only its vertices with arcs, so it is walked.
std::vector<uint64_t> out_neighbours(const tg::GraphFile& g, uint64_t v) {
  if (v >= g.num_vertices()) tg::fail("vertex {} is not below {}", v, g.num_vertices());
  const auto ranges = g.ranges();
  const auto row =
      static_cast<uint32_t>(std::upper_bound(ranges.begin(), ranges.end(), v) - ranges.begin() - 1);
  std::vector<uint64_t> out;
  out.reserve(g.out_degree(v));
  for (uint32_t c = 0; c < g.blocks_per_side(); ++c) {
    const tg::BlockDecoder d = g.decoder(tg::Grid::kOut, row, c);
    d.for_each_vertex([&](uint64_t u, uint64_t begin, uint64_t end) {
      if (u != v) return;
      for (uint64_t e = begin; e < end; ++e) out.push_back(d.neighbour(e));
    });
  }
  return out;
}

// Writes the graph file's bytes to `path`: refused if it exists unless `overwrite`, written under
// a temporary name and renamed, so an error leaves no partial file (util/atomic_file.h).
void save(const tg::GraphFile& g, const std::string& path, bool overwrite) {
  tg::refuse_existing_output(path, overwrite);
  tg::AtomicFile out(path);
  const auto bytes = g.bytes();
  constexpr size_t kChunk = size_t{64} << 20;
  for (size_t at = 0; at < bytes.size(); at += kChunk)
    out.write(bytes.data() + at, std::min(kChunk, bytes.size() - at));
  out.commit();
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "tiergraph's C++ engine (use the tiergraph package, not this module)";
  tg::log::set_level(tg::log::Level::kQuiet);  // a library does not print; errors are exceptions
  tg::set_front(tg::Front::kPython);  // messages name keywords (memory_budget=...), not flags
  static nb::exception<tg::Error> error(m, "Error");  // tiergraph.Error; bad_alloc is MemoryError

  nb::class_<GraphHandle>(m, "GraphFile")
      .def_prop_ro("path", [](const GraphHandle& g) { return g.file->path(); })
      .def_prop_ro("num_vertices", [](const GraphHandle& g) { return g.file->num_vertices(); })
      .def_prop_ro("num_edges", [](const GraphHandle& g) { return g.file->num_edges(); })
      .def_prop_ro("num_arcs", [](const GraphHandle& g) { return g.file->num_arcs(); })
      .def_prop_ro("directed", [](const GraphHandle& g) { return g.file->directed(); })
      .def_prop_ro("weighted", [](const GraphHandle& g) { return g.file->weighted(); })
      .def_prop_ro("blocks_per_side",
                   [](const GraphHandle& g) { return g.file->blocks_per_side(); })
      .def_prop_ro("min_weight", [](const GraphHandle& g) { return g.file->header().min_weight; })
      .def("original_ids",
           [](const GraphHandle& g) {
             std::vector<uint64_t> ids(g.file->num_vertices());
             for (uint64_t v = 0; v < ids.size(); ++v) ids[v] = g.file->original_id(v);
             return to_numpy(std::move(ids));
           })
      .def(
          "dense_id",
          [](const GraphHandle& g, uint64_t original) { return g.file->dense_id(original); },
          "original"_a)
      .def_prop_ro("name", [](const GraphHandle& g) { return g.file->name(); })
      .def("out_degrees",
           [](const GraphHandle& g) {
             std::vector<uint64_t> d(g.file->num_vertices());
             for (uint64_t v = 0; v < d.size(); ++v) d[v] = g.file->out_degree(v);
             return to_numpy(std::move(d));
           })
      .def("in_degrees",
           [](const GraphHandle& g) {
             std::vector<uint64_t> d(g.file->num_vertices());
             for (uint64_t v = 0; v < d.size(); ++v) d[v] = g.file->in_degree(v);
             return to_numpy(std::move(d));
           })
      .def(
          "out_degree", [](const GraphHandle& g, uint64_t v) { return g.file->out_degree(v); },
          "vertex"_a)
      .def(
          "in_degree", [](const GraphHandle& g, uint64_t v) { return g.file->in_degree(v); },
          "vertex"_a)
      .def(
          "neighbors",
          [](const GraphHandle& g, uint64_t v) { return to_numpy(out_neighbours(*g.file, v)); },
          "vertex"_a)
      .def(
          "save",
          [](const GraphHandle& g, const std::string& path, bool overwrite) {
            nb::gil_scoped_release release;
            save(*g.file, path, overwrite);
          },
          "path"_a, "overwrite"_a)
      .def(
          "run",
          [](const GraphHandle& g, const std::string& algorithm, const nb::dict& options) {
            return run(g.file, algorithm, options);
          },
          "algorithm"_a, "options"_a);

  m.def(
      "open",
      [](const std::string& path, bool verify, const std::string& name) {
        nb::gil_scoped_release release;
        return GraphHandle{tg::GraphFile::open(
            path, {.verify_checksums = verify, .verify_block_hashes = verify, .name = name})};
      },
      "path"_a, "verify_checksums"_a = true, "name"_a = "");
  m.def("from_edges", &graph_from_edges, "src"_a, "dst"_a, "weights"_a.none(), "num_vertices"_a,
        "directed"_a, "keep_self_loops"_a, "keep_duplicates"_a, "blocks"_a, "scratch_dir"_a,
        "threads"_a, "name"_a);
  m.def("convert", &convert, "input"_a, "output"_a, "options"_a);
  m.def("generate", &generate, "output"_a, "kind"_a, "scale"_a, "edge_factor"_a, "seed"_a,
        "weights"_a, "undirected"_a, "blocks"_a, "overwrite"_a, "memory_budget"_a, "scratch"_a);
  m.def("kernel_names", &tg::kernel_names);
}
