"""bench/dist.py's report: the tables per graph (both systems, the exchanges, ranks
under a budget), the plot, and the markdown page."""
import math
import os
from pathlib import Path

from common import median
from dist_systems import RUNS, TIERED


def fmt(x, digits=4):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def table(graph, rows):
    """One line per (algorithm, ranks, exchange mode): tiergraph, Gemini, their ratio, and each
    system's time against its own 1-rank time."""
    lines = ["| algorithm | ranks | exchange | OMP wait | tiergraph s | Gemini s | Gemini / tiergraph | "
             "tiergraph t(N)/t(1) | Gemini t(N)/t(1) | tiergraph imbalance | tiergraph communication | "
             "other processes' CPU |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    one = {(r["algorithm"], r["system"]): r["median_s"] for r in rows if r["ranks"] == 1 and not r.get("exchange")}
    for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
        for ranks in dict.fromkeys(r["ranks"] for r in rows):
            group = [r for r in rows if r["algorithm"] == algorithm and r["ranks"] == ranks]
            gemini = next((r for r in group if r["system"] == "gemini"), None)
            for tg in [r for r in group if r["system"] == "tiergraph"]:
                t = tg["median_s"]
                g = gemini["median_s"] if gemini else None
                cells = [algorithm, str(ranks), tg["exchange"] or "-", tg["omp_wait"],
                         f"failed: {tg['failed']}" if tg["failed"] else fmt(t),
                         "-" if not gemini else f"failed: {gemini['failed']}" if gemini["failed"] else fmt(g),
                         fmt(g / t if g and t else None, 2),
                         fmt(t / one[(algorithm, "tiergraph")] if t and one.get((algorithm, "tiergraph")) else None, 2),
                         fmt(g / one[(algorithm, "gemini")] if g and one.get((algorithm, "gemini")) else None, 2),
                         fmt(tg.get("imbalance"), 2),
                         "-" if tg.get("communication_share") is None else f"{100 * tg['communication_share']:.0f}%",
                         f"{100 * tg['other_cpu_share']:.0f}%"]
                lines.append("| " + " | ".join(cells) + " |")
    return lines


EXCHANGE_NOTE = (
    "Per N-rank tiergraph row: the time, the communication memory each rank held at its peak (the "
    "report's `communication_buffer_peak_bytes`, the busiest rank), and what its rings did (summed over "
    "ranks, median over the timed runs). `full mesh` is what per-thread rings between every sending and "
    "every receiving thread would hold with the same slots and batch: threads² times ours, since we keep "
    "one ring per peer, filled from what the rank's threads combined. It is computed, not run. `sent early`: "
    "the share of the updates sent (all ranks) that left before their pass's last slice was computed "
    "(`slices=N`: overlapped with computation); `stolen`: slices ranks took from their peers (`steal=1`, "
    "summed over ranks, median over runs); `wait`: the busiest waiter's seconds waiting at exchanges.")


def exchange_table(rows):
    """E5 in Nezha's shape (its Tables 6, 10 and 11): one line per N-rank tiergraph row (EXCHANGE_NOTE)."""
    lines = ["| exchange | algorithm | ranks | s | t(N)/t(1) | buffer peak / rank | ring slots x batch | "
             "ring batches | hurried | full waits | full mesh / rank | ours / full mesh | stolen | sent early | wait |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    one = {r["algorithm"]: r["median_s"] for r in rows if r["ranks"] == 1 and r["system"] == "tiergraph" and not r["exchange"]}
    for r in rows:
        if r["system"] != "tiergraph" or r["ranks"] == 1 or r["failed"]:
            continue
        ok = [run for run in r["runs"] if "per_rank" in run]
        timed = [ranks for run in ok for ranks in run["per_rank"][1:]]
        if not timed:
            continue
        peak = max(x.get("communication_buffer_peak_bytes") or 0 for ranks in timed for x in ranks)
        ring = [[x["ring"] for x in ranks if "ring" in x] for ranks in timed]
        cells = [r["exchange"], r["algorithm"], str(r["ranks"]), fmt(r["median_s"]),
                 fmt(r["median_s"] / one[r["algorithm"]] if one.get(r["algorithm"]) else None, 2),
                 f"{peak / 1024:.0f} KiB"]
        if all(ring):
            first = ring[0][0]
            threads = ok[0].get("threads") or 1
            mesh = threads * threads * first["bytes"]
            cells += [f"{first['slots']} x {first['batch_records']}",
                      *(f"{median([sum(x[key] for x in ranks) for ranks in ring]):.0f}"
                        for key in ("batches", "hurried_batches", "full_waits")),
                      f"{mesh / 1024:.0f} KiB ({threads} threads)", f"1/{mesh / first['bytes']:.0f}"]
        else:
            cells += ["-"] * 6
        cells.append(f"{median([sum(x.get('slices_stolen') or 0 for x in ranks) for ranks in timed]):.0f}")
        sent = sum(x.get("updates_sent") or 0 for ranks in timed for x in ranks)
        early = sum(x.get("updates_sent_early") or 0 for ranks in timed for x in ranks)
        cells.append(f"{100 * early / sent:.0f}%" if sent else "-")
        cells.append(fmt(median([max(x.get("wait_seconds") or 0 for x in ranks) for ranks in timed])))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


BUDGET_NOTE = (
    "Each mode run with `far=R` (--far-ratio) or `budget=SIZE` (--memory-budget) beside the same mode "
    "without it: every rank plans its own budget for the block rows of its masters and reads its far "
    "blocks from the graph file (O_DIRECT through io_uring), or with `tier=rank` from a far-memory rank "
    "of its own (MPI_Rget; N ranks start 2N processes), as they arrive, block-major; on one rank the "
    "same options make a plain run under a budget. `tiered t(N)/t(1)`: N tiered ranks over one tiered "
    "process. `far share`: "
    "the largest rank's far bytes over the bytes of its rows' blocks; `fetched / rank / trial`: the "
    "bytes the busiest rank read from its far tier, per trial; `peak RSS / rank`: the largest rank's "
    "(a budget promises at most the budget plus 64 MiB for the runtime, MPI's included).")


def budget_table(rows):
    """Ranks under a memory budget: one line per mode that was also run with far= or budget= (BUDGET_NOTE)."""
    lines = ["| exchange | algorithm | ranks | all local s | tiered s | tiered / all local | tiered t(N)/t(1) | "
             "far share | fetched / rank / trial | peak RSS / rank |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    mine = [r for r in rows if r["system"] == "tiergraph" and not r["failed"]]
    for tiered in [r for r in mine if r["exchange"] and TIERED.search(r["exchange"])]:
        mode = TIERED.sub("", tiered["exchange"]) if tiered["ranks"] > 1 else None  # one process: the plain row
        local = next((r for r in mine if r["exchange"] == mode and r["algorithm"] == tiered["algorithm"]
                      and r["ranks"] == tiered["ranks"]), None)
        one = next((r for r in mine if r["exchange"] == tiered["exchange"] and r["algorithm"] == tiered["algorithm"]
                    and r["ranks"] == 1), None)
        runs = [run["per_rank"] for run in tiered["runs"] if run.get("per_rank")]
        if not local:
            continue
        ranks = runs[-1][-1] if runs else []  # the last trial's ranks: the stores' counters since the run began
        plans = [x["plan"] for x in ranks if "plan" in x]
        share = max((p["far_bytes"] / (p["far_bytes"] + p["local_bytes"]) for p in plans
                     if p["far_bytes"] + p["local_bytes"]), default=None)
        fetched = max((x["store"].get("bytes_fetched") or 0 for x in ranks if "store" in x), default=None)
        peak = max((x.get("peak_rss_bytes") or 0 for x in ranks), default=None)
        lines.append("| " + " | ".join([tiered["exchange"], tiered["algorithm"], str(tiered["ranks"]),
                                         fmt(local["median_s"]), fmt(tiered["median_s"]),
                                         fmt(tiered["median_s"] / local["median_s"], 2),
                                         fmt(tiered["median_s"] / one["median_s"] if one else None, 2), fmt(share, 2),
                                         "-" if fetched is None else f"{fetched / len(runs[-1]) / 2**20:.0f} MiB",
                                         "-" if not peak else f"{peak / 2**20:.0f} MiB"]) + " |")
    return lines if len(lines) > 2 else []


def plot(out, rows, graphs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return None
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    fig, axes = plt.subplots(len(graphs), len(algorithms), figsize=(3.2 * len(algorithms), 2.8 * len(graphs)),
                             squeeze=False)
    for i, graph in enumerate(graphs):
        for j, algorithm in enumerate(algorithms):
            ax = axes[i][j]
            series = {}
            mine = [r for r in rows if r["graph"] == graph["name"] and r["algorithm"] == algorithm and r["median_s"]]
            # tiergraph's 1-rank run has no exchange mode: it starts the line of every mode.
            modes = sorted({r["exchange"] for r in mine if r["system"] == "tiergraph" and r["exchange"]}) or [None]
            for r in mine:
                if r["system"] == "gemini":
                    series.setdefault("Gemini", []).append((r["ranks"], r["median_s"]))
                    continue
                for mode in [r["exchange"]] if r["exchange"] else modes:
                    label = "tiergraph" + (f" ({mode})" if mode else "")
                    series.setdefault(label, []).append((r["ranks"], r["median_s"]))
            for label, points in series.items():
                xs, ys = zip(*sorted(points))
                ax.plot(xs, ys, marker="o", label=label)
            ax.set_yscale("log")
            ax.set_xticks(sorted({r["ranks"] for r in rows}))
            ax.set_title(f"{graph['name']} {algorithm}", fontsize=9)
            ax.set_xlabel("ranks", fontsize=8)
            if j == 0:
                ax.set_ylabel("median seconds", fontsize=8)
            if series:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}.png", dpi=110)
    return f"{out}.png"


def markdown(args, out):
    lines = ["# Distributed execution over MPI ranks: tiergraph against Gemini", "",
             f"Command: `{out['command']}`", "",
             f"Machine: {out['machine']}; load average before {out['load_before']}, after {out['load_after']}. "
             f"tiergraph {out['commit']} (binary built {out['built']}); Gemini "
             f"{out['gemini_commit'] or 'not run (no GEMINI_DIR)'}. "
             f"`{' '.join(out['mpirun'])} -np N`; {args.trials} trial{'s' if args.trials > 1 else ''} per row, each one process per "
             f"system from the same source (who goes first rotates), {RUNS} computes per process, the first a "
             f"warm-up: medians of the other {RUNS - 1} of every trial.", "",
             "Ratio Gemini / tiergraph > 1: tiergraph faster. t(N)/t(1): a system's median with N ranks over its "
             "own with 1 (below 1: faster with more ranks). tiergraph imbalance: its report's `imbalance` "
             "(median per trial); communication: the busiest rank's `communication_seconds` over the trial's "
             "seconds. tiergraph's time is its kernel time "
             "(`trials[].seconds`); Gemini's is `exec_time`, which also counts allocating and filling its "
             "vertex arrays. PageRank: exactly "
             f"{args.pr_iterations} iterations on both. SSSP: the same integer weights in [1, 255] on both "
             "(float32 in Gemini's file). Both use every core in each rank (Gemini cannot be told otherwise): "
             f"with more ranks than the machine's {os.cpu_count()} cores both oversubscribe it, and their OpenMP "
             "threads spin while they wait unless OMP_WAIT_POLICY=passive (the OMP wait column; --omp-wait "
             f"{args.omp_wait}).", ""]
    for graph in out["graphs"]:
        lines += [f"## {graph['name']}", "",
                  f"{graph['vertices']} vertices ({graph['isolated']} without edges), {graph['edges']} "
                  f"{'arcs' if graph['directed'] else 'undirected edges'} ({graph['arcs']} arcs in Gemini's file); "
                  f"from {graph['origin']}. Sources: {graph['sources'][:args.trials]}"
                  + (f" (original ids {graph['source_labels'][:args.trials]})" if graph["source_labels"] else "")
                  + ".", ""]
        lines += table(graph, [r for r in out["rows"] if r["graph"] == graph["name"]]) + [""]
        if any(r["exchange"] for r in out["rows"] if r["graph"] == graph["name"]):
            lines += [f"### {graph['name']}: the exchanges (E5)", "", EXCHANGE_NOTE, "",
                      *exchange_table([r for r in out["rows"] if r["graph"] == graph["name"]]), ""]
        budget = budget_table([r for r in out["rows"] if r["graph"] == graph["name"]])
        if budget:
            lines += [f"### {graph['name']}: ranks under a memory budget", "", BUDGET_NOTE, "", *budget, ""]
    lines += ["## Checks", ""] + [f"- {c}" for c in out["checks"]] + [""]
    if out["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in out["notes"]] + [""]
    if out.get("plot"):
        lines += [f"Plot: `{Path(out['plot']).name}` (median seconds by ranks, log scale).", ""]
    return "\n".join(lines)
