"""`tiergraph convert`'s options: self-loops and duplicates, the symmetric closure, id modes, weight
types and generated weights."""

from __future__ import annotations

import numpy as np
import pytest

from graphfile import read_graph
from convert_model import (
    LOOPS_DUPS, U64, assert_same_arcs, build_case, check_graph, convert_and_check, model,
    sorted_arcs, write_case,
)


# ================================================================================================
# 3. Options
# ================================================================================================




@pytest.mark.parametrize("undirected", [False, True], ids=["directed", "undirected"])
@pytest.mark.parametrize("keep_loops,keep_dups", [(False, False), (True, False), (False, True), (True, True)])
def test_keep_self_loops_and_duplicates(tg, tmp, undirected, keep_loops, keep_dups):
    src = tmp / "g.txt"
    src.write_text(LOOPS_DUPS)
    u = [1, 2, 1, 1, 3, 3, 2, 4]
    v = [2, 1, 2, 2, 3, 3, 3, 4]
    w = [5, 3, 4, 9, 7, 1, 8, 2]
    opts = (["-s"] if undirected else []) + (["--keep-self-loops"] if keep_loops else []) + \
           (["--keep-duplicates"] if keep_dups else [])
    out = tmp / "g.tg"
    tg.convert(src, out, *opts)
    s, d, ww, stats = model(u, v, w, undirected=undirected, keep_loops=keep_loops, keep_dups=keep_dups)
    # Hand-computed counts, so that the model itself is checked too.
    hand = {  # (undirected, keep_loops, keep_dups) -> (edges, loops removed, duplicates removed)
        (False, False, False): (3, 3, 2), (False, True, False): (5, 0, 3),
        (False, False, True): (5, 3, 0), (False, True, True): (8, 0, 0),
        (True, False, False): (2, 3, 3), (True, True, False): (4, 0, 4),
        (True, False, True): (5, 3, 0), (True, True, True): (8, 0, 0),
    }[(undirected, keep_loops, keep_dups)]
    assert (stats["edges"], stats["self_loops_removed"], stats["duplicates_removed"]) == hand
    g, info = check_graph(tg, out, n=4, ids=[1, 2, 3, 4], src=s, dst=d, w=ww, stats=stats, undirected=undirected,
                          weight_type="int32")
    assert info["self_loops_kept"] == keep_loops
    assert info["duplicates_kept"] == keep_dups
    if not keep_dups:
        # The least weight of the repeated pair survives.
        k = np.nonzero((g.src == 1) & (g.dst == 2))[0]
        assert list(g.weight[k]) == [3 if undirected else 4]


def test_undirected_symmetric_closure(tg, tmp):
    case = build_case("edgelist-space-label64")
    src = write_case(case, tmp)
    out = tmp / "g.tg"
    g, info = convert_and_check(tg, case, src, out, extra=("-s",), undirected=True)
    assert info["directed"] is False and "degree" in info and "in_degree" not in info
    pairs = set(zip(g.src.tolist(), g.dst.tolist()))
    assert all((b, a) in pairs for a, b in pairs), "not symmetric"
    # Exactly the symmetric closure of the input, minus self-loops.
    closure = {(a, b) for a, b in zip(case.u.tolist(), case.v.tolist()) if a != b}
    closure |= {(b, a) for a, b in closure}
    assert pairs == closure


def test_ids_index_keeps_unmentioned_vertices(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("0 3\n3 7\n7 0\n5 3\n")
    out = tmp / "g.tg"
    tg.convert(src, out, "--ids", "index")
    g = read_graph(out)
    assert g.num_vertices == 8  # 0..7; 1, 2, 4, 6 never appear
    np.testing.assert_array_equal(g.original_ids, np.arange(8, dtype=U64))
    info = tg.info(out)
    assert info["id_mode"] == "index" and info["id_base"] == 0 and info["id_map"] == "offset"
    assert info["out_degree"]["zero"] == 4  # 1, 2, 4, 6
    assert info["in_degree"]["zero"] == 5  # 1, 2, 4, 5, 6
    _, _, _, stats = model([0, 3, 7, 5], [3, 7, 0, 3], undirected=False)
    assert_same_arcs((g.src, g.dst, None), ([0, 3, 7, 5], [3, 7, 0, 3], None))
    # The same file in label mode: only the 4 ids that occur.
    out2 = tmp / "g2.tg"
    tg.convert(src, out2, "--ids", "label")
    g2 = read_graph(out2)
    assert g2.num_vertices == 4
    np.testing.assert_array_equal(g2.original_ids, np.array([0, 3, 5, 7], dtype=U64))
    assert_same_arcs((g2.src, g2.dst, None), ([0, 3, 7, 5], [3, 7, 0, 3], None))


def test_ids_index_from_nonzero(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("5 9\n9 6\n")
    out = tmp / "g.tg"
    tg.convert(src, out, "--ids", "index")
    g = read_graph(out)
    assert g.num_vertices == 10  # ids are indices from 0
    assert_same_arcs((g.src, g.dst, None), ([5, 9], [9, 6], None))


def test_label_mode_maps_original_ids(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("10 5000000000\n5000000000 7\n7 10\n10 7\n")
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.num_vertices == 3
    np.testing.assert_array_equal(g.original_ids, np.array([7, 10, 5000000000], dtype=U64))
    assert_same_arcs((g.src, g.dst, None), ([10, 5000000000, 7, 10], [5000000000, 7, 10, 7], None))
    # Dense ids follow label order: 7 -> 0, 10 -> 1, 5000000000 -> 2.
    dense = set(zip(g.dense_src.tolist(), g.dense_dst.tolist()))
    assert dense == {(1, 2), (2, 0), (0, 1), (1, 0)}
    info = tg.info(out)
    assert info["id_mode"] == "label" and info["id_map"] == "explicit"


def test_label_mode_contiguous_ids_use_offset(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("1000 1001\n1002 1000\n1001 1003\n")
    out = tmp / "g.tg"
    tg.convert(src, out)
    info = tg.info(out)
    assert info["id_map"] == "offset" and info["id_base"] == 1000 and info["vertices"] == 4
    g = read_graph(out)
    assert_same_arcs((g.src, g.dst, None), ([1000, 1002, 1001], [1001, 1000, 1003], None))


@pytest.mark.parametrize("ids", [[0, 2**64 - 1], [5, 2**64 - 1], [2**64 - 1, 2**64 - 2]],
                         ids=["0-and-max", "5-and-max", "max-and-max-1"])
def test_label_mode_extreme_ids(tg, tmp, ids, request):
    src = tmp / "g.txt"
    src.write_text(f"{ids[0]} {ids[1]}\n{ids[1]} {ids[0]}\n")
    out = tmp / "g.tg"
    res = tg.convert(src, out, check=False)
    assert res.returncode == 0, repr(res)
    g = read_graph(out)
    assert g.num_vertices == 2
    np.testing.assert_array_equal(g.original_ids, np.array(sorted(ids), dtype=U64))
    assert_same_arcs((g.src, g.dst, None), ([ids[0], ids[1]], [ids[1], ids[0]], None))


@pytest.mark.parametrize("weights,wtype", [
    ([2147483647, -2147483648], "int32"),
    ([2147483648, 1], "int64"),
    ([-2147483649, 1], "int64"),
    ([1e3, -0.0], "int32"),
    ([1.5, 2], "float64"),
    # Integral but beyond int64 (found by fuzzing: classifying them was undefined behaviour).
    ([1e19, 1], "float64"),
    ([2**63, -(2**63)], "float64"),
], ids=["int32-bounds", "above-int32", "below-int32", "integral-floats", "mixed", "above-int64", "int64-edges"])
def test_weight_type_boundaries(tg, tmp, weights, wtype):
    src = tmp / "g.txt"
    src.write_text("".join(f"{i} {i + 1} {x!r}\n" if isinstance(x, float) else f"{i} {i + 1} {x}\n"
                           for i, x in enumerate(weights)))
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.weight_type == wtype
    k = np.arange(len(weights))
    assert_same_arcs((g.src, g.dst, g.weight), (k, k + 1, np.array(weights, dtype=np.float64)))


def test_large_integer_weights_are_int64(tg, tmp):
    src = tmp / "g.txt"
    src.write_text(f"1 2 {2**40}\n2 3 -{2**35}\n3 1 7\n")
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.weight_type == "int64"
    assert_same_arcs((g.src, g.dst, g.weight), ([1, 2, 3], [2, 3, 1], np.array([2**40, -(2**35), 7], dtype=np.float64)))


@pytest.mark.parametrize("kind", ["int", "real"])
def test_generated_weights(tg, tmp, kind):
    case = build_case("csv-no-header")  # unweighted input
    src = write_case(case, tmp)
    outs = {}
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        out = tmp / f"{name}.tg"
        tg.convert(src, out, "--weights", kind, "--weight-seed", seed)
        outs[name] = out
    g = read_graph(outs["a"])
    info = tg.info(outs["a"])
    assert info["weights_generated"] is True
    _, _, _, stats = model(case.u, case.v, None, undirected=False)
    assert len(g.src) == stats["arcs"] and g.num_vertices == case.n
    if kind == "int":
        assert g.weight_type == "int32"
        assert g.weight.min() >= 1 and g.weight.max() <= 255
        assert len(np.unique(g.weight)) > 20  # spread over the range, not a constant
    else:
        assert g.weight_type == "float64"
        assert g.weight.min() > 0 and g.weight.max() <= 1
        assert len(np.unique(g.weight)) > len(g.weight) // 2  # really real-valued
    # The header's range covers the stored weights and stays inside the generator's range.
    assert info["weight_min"] <= g.weight.min() and info["weight_max"] >= g.weight.max()
    assert info["weight_min"] > 0 and info["weight_max"] <= (255 if kind == "int" else 1)
    # Deterministic for a seed: identical files; another seed changes the weights, not the arcs.
    assert outs["a"].read_bytes() == outs["b"].read_bytes()
    gc = read_graph(outs["c"])
    assert_same_arcs((g.src, g.dst, None), (gc.src, gc.dst, None))
    assert not np.array_equal(sorted_arcs(g.src, g.dst, g.weight)[2], sorted_arcs(gc.src, gc.dst, gc.weight)[2])
    # Thread count does not change them either.
    out_t1 = tmp / "t1.tg"
    tg.convert(src, out_t1, "--weights", kind, "--weight-seed", 7, "-t", 1)
    assert out_t1.read_bytes() == outs["a"].read_bytes()


def test_generated_weights_undirected_are_symmetric(tg, tmp):
    case = build_case("edgelist-whitespace")  # weighted input: generated weights replace them
    src = write_case(case, tmp)
    out = tmp / "g.tg"
    tg.convert(src, out, "-s", "--weights", "int", "--weight-seed", 3)
    g = read_graph(out)
    assert g.weight_type == "int32" and g.weight.min() >= 1 and g.weight.max() <= 255
    wmap = {(a, b): c for a, b, c in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist())}
    assert all(wmap[(b, a)] == c for (a, b), c in wmap.items())
    s, d, _, _ = model(case.u, case.v, None, undirected=True)
    assert_same_arcs((g.src, g.dst, None), (s, d, None))
