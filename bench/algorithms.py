#!/usr/bin/env python3
"""Kernel benchmark: the seven algorithms on Kronecker scale 20 and 22 (edge factor 16), uniform
scale 22 and the largest shared datasets, T threads, several trials, medians of kernel time.

Every system reads the same edge list (written once here): tiergraph converts it to a graph file,
GAPBS (GAPBS_DIR: bfs, sssp, cc, pr, bc, tc, converter) to .sg/.wsg, Ligra (LIGRA_DIR: apps/Radii,
utils/SNAPtoAdj) to an adjacency file. Ratios are tiergraph / peer (below 1.0: tiergraph faster).
PageRank runs a fixed 20 iterations on both sides; SSSP uses the same delta on both sides; BFS
and SSSP run from the same sources on both sides (tiergraph's seeded picks, given to GAPBS with
-r); Radii runs on the symmetric graph on both sides (Ligra's Radii needs one). Betweenness
runs from one source a trial on both sides (GAPBS: -r S -i 1), the same sources (tiergraph's
seeded picks), so each trial is one forward and one backward sweep. Triangle counting runs on
the symmetric graph on both sides (GAPBS's tc takes only an undirected one). The local
clustering coefficient and label propagation (10 rounds), which GAPBS lacks, run beside
libgrape-lite's LDBC Graphalytics apps (GRAPE_DIR: build/run_app, `--opt`, its `run algorithm`
time, one process of T threads), on the graph as it is (directed ones with `--directed`, whose
semantics are Graphalytics' on both sides), from an edge list of each edge once (u < v when
undirected: libgrape-lite's LCC miscounts an undirected graph listed both ways).

    GAPBS_DIR=... LIGRA_DIR=... GRAPE_DIR=... python3 bench/algorithms.py [--inputs kron20,...]
"""
import argparse
import json
import lzma
import os
import random
from pathlib import Path

from common import ROOT, datasets_dir, ensure_time_tool, median, run, tiergraph_bin, values

DATASETS = {  # name: (file, undirected)
    "web-cnr-2000": ("web-cnr-2000.txt.xz", False),
    "road-pace-NE": ("road-pace-NE.gr.xz", True),
    "twitter-ego": ("soc-twitter-ego-undirected.txt.xz", True),
    "web-NotreDame": ("web-NotreDame.txt.xz", False),
    "slashdot": ("soc-Slashdot0902.txt.xz", False),
    "enron": ("email-Enron-undirected.txt.xz", True),
}


def write_edge_lists(name, work, threads):
    """Writes <name>.el and <name>.wel (weights 1..255, seeded) with 0-based ids; returns undirected?"""
    el, wel = work / f"{name}.el", work / f"{name}.wel"
    tg = tiergraph_bin()
    if name.startswith("kron") or name.startswith("urand"):
        flag = "-g" if name.startswith("kron") else "-u"
        scale = name[4:] if name.startswith("kron") else name[5:]
        if not el.exists():
            run([tg, "generate", flag, scale, "-o", el, "-t", threads])
        if not wel.exists():
            run([tg, "generate", flag, scale, "--weights", "int", "-o", wel, "-t", threads])
        return True
    file, undirected = DATASETS[name]
    if not el.exists():
        rng = random.Random(1)
        with lzma.open(datasets_dir() / file, "rt") as src, open(el, "w") as e, open(wel, "w") as w:
            for line in src:
                f = line.split()
                if not f or line[0] in "#%cp":
                    continue
                u, v = int(f[0]), int(f[1])
                if file.endswith(".gr.xz"):  # PACE ids are 1-based
                    u, v = u - 1, v - 1
                e.write(f"{u} {v}\n")
                w.write(f"{u} {v} {rng.randint(1, 255)}\n")
    return undirected


def grape_edge_list(name, work, undirected):
    """libgrape-lite's input: each edge once, no self-loops (sorted by sort -u, out of core)."""
    path = work / f"{name}-grape.el"
    if not path.exists():
        # (parenthesised: in awk, print a > b writes a to the file b)
        swap = "($1 < $2 ? $1 \" \" $2 : $2 \" \" $1)" if undirected else "$1 \" \" $2"
        script = f"awk '$1 != $2 {{ print {swap} }}' {work / f'{name}.el'} | sort -u -S 1G -T {work} > {path}"
        run(["sh", "-c", script])
    return path


def grape_times(app, edges, undirected, threads, trials):
    """A trial per run of libgrape-lite's run_app: its kernel ('run algorithm') seconds."""
    binary = Path(os.environ["GRAPE_DIR"]) / "build" / "run_app"
    more = ["--cdlp_mr", 10] if app == "cdlp" else []
    times = []
    for _ in range(trials):
        out, _, _ = run(["mpirun", "--allow-run-as-root", "--bind-to", "none", "-n", 1, binary, "--opt",
                         "--application", app, *more, "--nodirected" if undirected else "--directed",
                         "--efile", edges, "--app_concurrency", threads, "--load_concurrency", threads])
        times += values(out, " - run algorithm")
    return times


def tiergraph_times(algo, graph, threads, trials, extra=()):
    text, _, _ = run([tiergraph_bin(), "run", algo, graph, "-n", trials, "-t", threads] + list(extra),
                     env={"OMP_NUM_THREADS": str(threads)})
    return values(text, "Trial Time"), text


def gapbs_per_source(binary, graph, sources, env, extra=()):
    """One GAPBS trial per source, so both systems traverse from the same vertices."""
    times = []
    for source in sources:
        out, _, _ = run([binary, "-f", graph, "-n", 1, "-r", int(source)] + list(extra), env=env)
        times += values(out, "Trial Time")
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", default="kron20,kron22,urand22,web-cnr-2000,road-pace-NE,twitter-ego")
    ap.add_argument("--algorithms", default="bfs,sssp,wcc,pr,radii,bc,tc,lcc,cdlp")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "work"))
    args = ap.parse_args()
    ensure_time_tool()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    gapbs, ligra, grape = os.environ.get("GAPBS_DIR"), os.environ.get("LIGRA_DIR"), os.environ.get("GRAPE_DIR")
    env = {"OMP_NUM_THREADS": str(args.threads)}
    rows = []
    print(f"{'input':<14} {'algo':<6} {'tiergraph s':>12} {'peer s':>10} {'ratio':>7}  peer")
    for name in args.inputs.split(","):
        sym = write_edge_lists(name, work, args.threads)
        s = ["-s"] if sym else []
        tg_g, tg_w = work / f"{name}.tg", work / f"{name}-w.tg"
        if not tg_g.exists():
            run([tiergraph_bin(), "convert", work / f"{name}.el", "-o", tg_g, "--ids", "index"] + s, env=env)
        if not tg_w.exists():
            run([tiergraph_bin(), "convert", work / f"{name}.wel", "-o", tg_w, "--ids", "index"] + s, env=env)
        sg, wsg = work / f"{name}.sg", work / f"{name}.wsg"
        if gapbs and not sg.exists():
            run([Path(gapbs) / "converter", "-f", work / f"{name}.el", "-b", sg] + s, env=env)
        if gapbs and not wsg.exists():
            run([Path(gapbs) / "converter", "-f", work / f"{name}.wel", "-w", "-b", wsg] + s, env=env)
        adj = work / f"{name}.adj"
        if ligra and not adj.exists():
            run([Path(ligra) / "utils" / "SNAPtoAdj", "-s", work / f"{name}.el", adj], env=env)
        tg_sym = tg_g if sym else work / f"{name}-sym.tg"  # Radii's graph on both sides
        if not tg_sym.exists():
            run([tiergraph_bin(), "convert", work / f"{name}.el", "-o", tg_sym, "--ids", "index", "-s"], env=env)
        for algo in args.algorithms.split(","):
            peer_times, peer = [], ""
            if algo == "sssp":
                ours, text = tiergraph_times("sssp", tg_w, args.threads, args.trials)
                delta = values(text, "delta")[0]
                if gapbs:
                    peer_times = gapbs_per_source(Path(gapbs) / "sssp", wsg, values(text, "Source"), env,
                                                  ["-d", int(delta)])
                    peer = "GAPBS sssp"
            elif algo == "radii":
                ours, _ = tiergraph_times("radii", tg_sym, args.threads, args.trials)
                if ligra:
                    out, _, _ = run([Path(ligra) / "apps" / "Radii", "-s", "-rounds", args.trials, adj], env=env)
                    peer_times, peer = values(out, "Running time"), "Ligra Radii"
            elif algo == "tc":
                ours, _ = tiergraph_times("tc", tg_sym, args.threads, args.trials)
                sym_sg = sg if sym else work / f"{name}-sym.sg"
                if gapbs and not sym_sg.exists():
                    run([Path(gapbs) / "converter", "-f", work / f"{name}.el", "-s", "-b", sym_sg], env=env)
                if gapbs:
                    out, _, _ = run([Path(gapbs) / "tc", "-f", sym_sg, "-n", args.trials], env=env)
                    peer_times, peer = values(out, "Trial Time"), "GAPBS tc"
            elif algo in ("lcc", "cdlp"):
                ours, _ = tiergraph_times(algo, tg_g, args.threads, args.trials)
                if grape:
                    edges = grape_edge_list(name, work, sym)
                    peer_times, peer = grape_times(algo, edges, sym, args.threads, args.trials), f"libgrape-lite {algo}"
            elif algo == "bc":
                out, _, _ = run([tiergraph_bin(), "run", "bc", tg_g, "-k", args.trials, "--json", "-t", args.threads],
                                env=env)
                sources = json.loads(out[out.index("{"):out.rindex("}") + 1])["trials"][0]["sources"]
                ours = []
                for source in sources:
                    text, _, _ = run([tiergraph_bin(), "run", "bc", tg_g, "-r", source, "-t", args.threads], env=env)
                    ours += values(text, "Trial Time")
                if gapbs:
                    peer_times = gapbs_per_source(Path(gapbs) / "bc", sg, sources, env, ["-i", 1])
                    peer = "GAPBS bc"
            elif algo == "bfs":
                ours, text = tiergraph_times("bfs", tg_g, args.threads, args.trials)
                if gapbs:
                    peer_times = gapbs_per_source(Path(gapbs) / "bfs", sg, values(text, "Source"), env)
                    peer = "GAPBS bfs"
            else:
                extra = ["-i", "20"] if algo == "pr" else []
                ours, _ = tiergraph_times(algo, tg_g, args.threads, args.trials, extra)
                if gapbs:
                    kernel = {"wcc": "cc", "pr": "pr"}[algo]
                    more = ["-i", "20", "-t", "0"] if algo == "pr" else []
                    out, _, _ = run([Path(gapbs) / kernel, "-f", sg, "-n", args.trials] + more, env=env)
                    peer_times, peer = values(out, "Trial Time"), f"GAPBS {kernel}"
            t, p = median(ours), median(peer_times)
            ratio = t / p if peer_times else float("nan")
            rows.append((name, algo, t, p, ratio))
            print(f"{name:<14} {algo:<6} {t:>12.4f} {p:>10.4f} {ratio:>7.2f}  {peer}", flush=True)


if __name__ == "__main__":
    main()
