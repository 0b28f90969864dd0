"""A pytest plugin for scripts/test.sh's run of networkx's own tests on the tiergraph backend
(`-p nx_test_sampling`, with this folder on PYTHONPATH): it runs a sample of the one test that
repeats a single check hundreds of times, and every other test whole.

networkx's `TestDistance.test_use_bounds_on_off_consistency` has 500 cases (10 seeds x 10 sizes x
5 densities of a random connected graph of 10-19 vertices); each makes about 400 dispatched calls
of `single_source_shortest_path_length`, which the backend runs, so the 500 took 128 of the
section's 132 seconds on 2 cores. Two seeds keep every size and density: 100 cases, about 40,000
searches on the backend."""

from __future__ import annotations

SAMPLED_TEST = "test_use_bounds_on_off_consistency"
KEPT_SEEDS = {0, 1}


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        sampled = getattr(item, "originalname", None) == SAMPLED_TEST and "seed" in params
        (dropped if sampled and params["seed"] not in KEPT_SEEDS else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
