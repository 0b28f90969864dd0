#!/usr/bin/env bash
# The demo: set up, build, generate a Kronecker graph, convert a real dataset, describe both,
# and run all eight algorithms with verification on each.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
tg=build/release/tiergraph
data=$(scripts/datasets.sh)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== generate: Kronecker scale 16, edge factor 16, integer weights, undirected"
$tg generate -g 16 -k 16 --weights int -s -o "$out/kron16.tg"
echo "== convert: $data/road-rome99.gr.xz (DIMACS, weighted, directed)"
$tg convert "$data/road-rome99.gr.xz" -o "$out/rome99.tg"
echo "== info"
$tg info "$out/kron16.tg"
$tg info "$out/rome99.tg"
for g in "$out/kron16.tg" "$out/rome99.tg"; do
  for algo in bfs sssp wcc pr radii bc tc lcc cdlp; do
    echo "== run $algo on $(basename "$g")"
    $tg run "$algo" "$g" --trials 2 --verify
  done
done

echo "== Python: pip install . and an example (docs/python.md has the package)"
scripts/install_python.sh --build-dir build/release  # the engine built above: only the module is left
(cd "$out" && python3 - "$data/road-rome99.gr.xz" <<'PY'
import sys
import networkx as nx
import tiergraph as tg

g = tg.load(sys.argv[1])                      # any input convert reads, or a graph file
r = tg.sssp(g, source=1, verify=True)         # numpy values indexed by vertex, the run's stats
print(g, r, sep="\n")
print("farthest:", max(r.to_dict().items(), key=lambda kv: kv[1]))
G = nx.les_miserables_graph()
print("networkx backend, top PageRank:", max(nx.pagerank(G, weight=None, backend="tiergraph").items(), key=lambda kv: kv[1]))
K = nx.karate_club_graph()  # (a graph of its own: G's conversion is cached, and networkx warns when reused)
print("networkx backend, most between:", max(nx.betweenness_centrality(K, backend="tiergraph").items(), key=lambda kv: kv[1]))
PY
)
