"""Errors as a Python user meets them: the package's classes (a bad type is also a TypeError, a bad
value also a ValueError), messages that name the keyword the user wrote (memory_budget=..., never
the CLI's --memory-budget) and the graph as the user knows it (never a scratch file's path)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import tiergraph as tg


def assert_pythonic(message: str) -> None:
    """No CLI flag and no scratch file in a message a Python user reads."""
    assert not re.search(r"(^|\s)--[a-z]", message), message
    assert "tiergraph-load-" not in message and "tiergraph-edges-" not in message and "tiergraph-gen-" not in message, message


@pytest.fixture(scope="module")
def on_disk(tmp_path_factory):
    """A graph file on disk (the file tier needs one), and a weighted one."""
    d = tmp_path_factory.mktemp("graphs")
    return tg.generate("kronecker", 10, d / "k10.tg"), tg.generate("kronecker", 8, d / "w8.tg", weights="int")


@pytest.mark.parametrize("budget", [1.5, True, b"1G", [1]])
def test_a_memory_budget_of_the_wrong_type_is_invalid_type_naming_the_keyword(on_disk, budget):
    with pytest.raises(tg.InvalidType) as e:
        tg.bfs(on_disk[0], 0, memory_budget=budget)
    assert isinstance(e.value, TypeError) and isinstance(e.value, tg.Error)
    assert "memory_budget must be a size in bytes (an int) or a str such as '512M'" in str(e.value)


@pytest.mark.parametrize("ratio", ["abc", True, [0.5]])
def test_a_far_ratio_of_the_wrong_type_is_invalid_type_naming_the_keyword(on_disk, ratio):
    with pytest.raises(tg.InvalidType, match="far_ratio must be a number between 0 and 1"):
        tg.bfs(on_disk[0], 0, far_ratio=ratio)


@pytest.mark.parametrize("budget, text", [
    (-1, "memory_budget must be a size above 0 and below 2**64 bytes, got -1"),
    (0, "memory_budget must be a size above 0 and below 2**64 bytes, got 0"),
    (2**70, f"memory_budget must be a size above 0 and below 2**64 bytes, got {2**70}"),
    ("-1", "memory_budget must be a size above 0 (and below 16 EiB) such as 4096, 64K, 512M or 2G, got '-1'"),
    ("lots", "memory_budget must be a size above 0 (and below 16 EiB) such as 4096, 64K, 512M or 2G, got 'lots'"),
    ("99999999T", "memory_budget must be a size above 0 (and below 16 EiB)"),
])
def test_a_bad_memory_budget_says_what_is_wrong_with_it(on_disk, budget, text):
    with pytest.raises(tg.InvalidInput) as e:
        tg.bfs(on_disk[0], 0, memory_budget=budget)
    assert isinstance(e.value, ValueError)
    assert text in str(e.value) and "one of the two" not in str(e.value)


@pytest.mark.parametrize("ratio", [1.5, -0.1, math.nan])
def test_a_far_ratio_out_of_range_is_invalid_input(on_disk, ratio):
    with pytest.raises(tg.InvalidInput, match=r"far_ratio must be between 0 and 1, got"):
        tg.bfs(on_disk[0], 0, far_ratio=ratio)


@pytest.mark.parametrize("options, text", [
    ({"direction": 3}, "direction must be a str, got 3 (int)"),
    ({"schedule": "sideways"}, "schedule must be auto, vertex or block, got 'sideways'"),
    ({"far": "numa", "far_node": "x", "far_ratio": 0.5}, "far_node must be an int, got 'x' (str)"),
    ({"far": "paging"}, "far places blocks under a budget: give memory_budget or far_ratio too"),
    ({"far": "cxl", "far_ratio": 0.5}, "far must be file, numa, rank or paging, got 'cxl'"),
    ({"memory_budget": "1G", "far_ratio": 0.5}, "give memory_budget or far_ratio, not both"),
    ({"profile": "p.json"}, "profile sizes the fetch pipeline under a budget: give memory_budget or far_ratio too"),
])
def test_every_keyword_is_checked_by_type_and_value_and_named(on_disk, options, text):
    with pytest.raises(tg.Error) as e:
        tg.bfs(on_disk[0], 0, **options)
    assert isinstance(e.value, TypeError if "must be a str" in text or "must be an int" in text else ValueError)
    assert text in str(e.value)
    assert_pythonic(str(e.value))


def test_a_budget_too_small_names_the_keyword_to_give_and_the_graph(on_disk):
    with pytest.raises(tg.Error) as e:
        tg.pagerank(on_disk[0], memory_budget="4K", iterations=1)
    message = str(e.value)
    assert re.search(r"give memory_budget='\d+M' or more", message), message
    assert_pythonic(message)
    with pytest.raises(tg.Error) as e:  # a graph in a scratch file is named as the user made it
        tg.pagerank(tg.generate("kronecker", 12), memory_budget="4K", far="paging", iterations=1)
    assert "pr the generated graph needs at least" in str(e.value)
    assert "built (or reblocked) with blocks=8" in str(e.value)  # a pull's accumulators dominate: a finer grid
    assert_pythonic(str(e.value))


def test_sssp_on_an_unweighted_graph_names_the_keyword_and_the_graph():
    g = tg.Graph.from_edges(np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(tg.Error) as e:
        tg.sssp(g, 0)
    assert str(e.value) == ("sssp needs edge weights and the graph built from edge arrays has none; pass "
                            "unit_weights=True to count hops as distance 1")
    nx = pytest.importorskip("networkx")
    with pytest.raises(tg.Error, match="the graph built from a networkx graph has none"):
        tg.sssp(tg.Graph.from_networkx(nx.path_graph(3)), 0)


def test_a_graph_read_from_text_is_named_by_its_input(tmp_path):
    edges = tmp_path / "edges.el"
    edges.write_text("1 2\n2 3\n")
    with pytest.raises(tg.Error) as e:
        tg.sssp(tg.load(edges), 1)
    assert f"the graph read from '{edges}' has none" in str(e.value)
    assert_pythonic(str(e.value))


def test_outputs_that_exist_ask_for_overwrite_true(tmp_path):
    target = tmp_path / "g.tg"
    tg.generate("kronecker", 6, target)
    with pytest.raises(tg.Error) as e:
        tg.generate("kronecker", 6, target)
    assert "pass overwrite=True to replace it" in str(e.value)
    assert_pythonic(str(e.value))


def test_convert_options_are_named_as_keywords(tmp_path):
    edges = tmp_path / "edges.el"
    edges.write_text("0 1 2 3\n")
    with pytest.raises(tg.Error) as e:
        tg.convert(edges, tmp_path / "a.tg", vertices=4)
    assert "vertices applies to index mode; add ids='index'" in str(e.value)
    with pytest.raises(tg.Error) as e:
        tg.convert(edges, tmp_path / "b.tg")
    assert "say which hold source, destination and weight with columns (e.g. columns='0,1' or columns='0,1,2')" in str(e.value)


def test_a_delta_that_rounds_to_zero_is_named_as_the_keyword(on_disk):
    with pytest.raises(tg.Error, match=r"delta=0\.5 rounds to 0 for integer weights"):
        tg.sssp(on_disk[1], 0, delta=0.5)
