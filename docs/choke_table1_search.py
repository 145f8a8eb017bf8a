"""Which open details of CHOKe's set-up give the paper's UDP numbers of Table I, or of Fig. 5?

Table I: the paper's UDP flow keeps 740 kbps of R2-R3's 2 Mbps and loses 55% of what reaches
R3-R4; aqmlab, with ns-2's 1998 TCP timers and RED's defaults, keeps 627 kbps and loses 55.4%.
Fig. 5: the paper's UDP flow keeps 228 and 170 kbps of the 1 Mbps bottleneck when it sends at 3
and 10 Mbps; aqmlab's keeps 176 and 18. This diagnostic draws models at random, each open detail
from its readings (the TCP flavour and timers, delayed ACKs, RED's w_q, max_p, wait and gentle,
CHOKe's readings, the start spread), runs each on several seeds and counts those whose UDP flow
is within 10% of the paper: on both of Table I's links, or at both of Fig. 5's rates (and for
those, Fig. 6's measure at 10 Mbps: the UDP flow's share of the buffer, the paper's half).
Nothing here changes a reproduction; docs/reproductions.md quotes its summaries.

    python docs/choke_table1_search.py --models 3000 --seeds 3 --workers 2 --out choke_models.jsonl
    python docs/choke_table1_search.py --figure 5 --models 3000 --seeds 2 --draw-seed 2
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

from aqmlab.reproduce import search

PAPERS = Path(__file__).resolve().parents[1] / "scenarios" / "papers" / "choke-2000"
SCENARIO = PAPERS / "table1.toml"
FIG5 = PAPERS / "fig5.toml"
FIG6 = PAPERS / "fig6.toml"
#: Fig. 5's rates searched and the paper's UDP goodput at each, kbps.
FIG5_GOODPUT_KBPS = {"3000kbps": 228.0, "10000kbps": 170.0}
CHOKE_LINKS = ("r1->r2", "r2->r3", "r3->r4", "r4->r5")
#: Seconds measured (the scenario's 100 s from 20 s).
WINDOW_S = 80.0
#: Each open detail's readings; every model draws one value per key. "timer" stands for three keys:
#: ns-2's (100 ms ticks), 4.3BSD's (500 ms ticks) or exact timers.
TCP_READINGS: dict[str, list[str]] = {
    "cc": ["reno", "tahoe", "newreno"],
    "timer": ["ns2", "bsd", "exact"],
    "min_rto": ["0s", "200ms", "1s"],
    "delayed_ack": ["false", "true"],
    "initial_rto": ["3s", "6s"],
    "rtt_timing": ["one_at_a_time", "every_ack"],
    "clear_srtt_after_backoffs": ["0", "4"],
    "tick_phase": ["random", "aligned"],
    "start_jitter": ["1s", "0s", "5s"],
}
QUEUE_READINGS: dict[str, list[str]] = {
    "w_q": ["0.002", "0.001", "0.02"],
    "max_p": ["0.1", "0.02", "0.05", "0.2"],
    "wait": ["true", "false"],
    "gentle": ["false", "true"],
    "forced_compare": ["always", "queue_above_max_th", "never"],
    "drop_bit": ["false", "true"],
    "replacement": ["true", "false"],
    "match_resets_count": ["true", "false"],
}
#: The paper's UDP numbers.
PAPER_KBPS_R2_R3 = 740.311
PAPER_LOSS_R3_R4 = 0.55


def draw(rng: random.Random) -> dict[str, str]:
    return search.choose(rng, TCP_READINGS, "tcp.") | search.choose(rng, QUEUE_READINGS, "queue.")


def overrides(model: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    timer = model["tcp.timer"]
    for name, value in model.items():
        kind, key = name.split(".", 1)
        if kind == "queue":
            out.update({f"link.{link}.queue.{key}": value for link in CHOKE_LINKS})
        elif key == "timer":
            out["flow.tcp{i}.tick_model"] = "ns2" if timer == "ns2" else "bsd"
            out["flow.tcp{i}.tick"] = {"ns2": "100ms", "bsd": "500ms", "exact": "0s"}[timer]
        elif key == "tick_phase" and timer == "exact":
            continue
        elif key == "start_jitter":
            out["flow.tcp{i}.start_jitter"] = value
            out["flow.udp.start_jitter"] = value
        else:
            out[f"flow.tcp{{i}}.{key}"] = value
    return out


def bottleneck_overrides(model: dict[str, str]) -> dict[str, str]:
    """The model on Figs. 5 and 6's set-up: its one CHOKe queue is the link named bottleneck."""
    out = {}
    for key, value in overrides(model).items():
        if key.startswith(f"link.{CHOKE_LINKS[0]}.queue."):
            out["link.bottleneck.queue." + key.split(".queue.", 1)[1]] = value
        elif not key.startswith("link."):
            out[key] = value
    return out


def udp_buffer_share(model: dict[str, str], seed: int) -> float:
    """Fig. 6's measure at 10 Mbps: the UDP flow's packets in the bottleneck's buffer over all
    flows', time-averaged over the measured window."""
    import pandas as pd

    import aqmlab
    from aqmlab.reproduce.choke_flows import occupancy
    from aqmlab.reproduce.runner import series_means

    result = aqmlab.run(FIG6, seed=seed, overrides={**bottleneck_overrides(model), "flow.udp.rate": "10000kbps"})
    per_flow = occupancy({"series": pd.DataFrame(series_means(result)).assign(condition="udp=10000kbps", seed=seed)})
    pkts = per_flow.set_index("flow")["pkts"]
    return float(pkts["udp"]) / float(pkts.sum())


def run_fig5_model(job: tuple[dict[str, str], list[int]]) -> dict:
    import aqmlab

    model, seeds = job
    runs = []
    for seed in seeds:
        run: dict = {"seed": seed}
        for rate in FIG5_GOODPUT_KBPS:
            lf = aqmlab.run(
                FIG5, seed=seed, overrides={**bottleneck_overrides(model), "flow.udp.rate": rate}
            ).link_flows
            udp = lf[(lf["flow"] == "udp") & (lf["link"] == "bottleneck")].iloc[0]
            run[rate] = float(udp["departures"]) * 8 / WINDOW_S
        runs.append(run)
    result = {"model": model, "runs": runs}
    if fig5_goodputs(result):
        result["udp_buffer_share_10mbps"] = statistics.mean(udp_buffer_share(model, s) for s in seeds)
    return result


def fig5_goodputs(result: dict) -> bool:
    """The seeds' mean goodputs within 10% of the paper at both rates."""
    return all(
        search.near(statistics.mean(r[rate] for r in result["runs"]), paper)
        for rate, paper in FIG5_GOODPUT_KBPS.items()
    )


def summarise_fig5(results: list[dict]) -> str:
    hits = [r for r in results if fig5_goodputs(r)]
    lines = [f"{len(hits)} of {len(results)} models within 10% of Fig. 5's goodput at 3 and 10 Mbps"]
    for bit in ("true", "false"):
        shares = [r["udp_buffer_share_10mbps"] for r in hits if r["model"]["queue.drop_bit"] == bit]
        if shares:
            lines.append(
                f"  drop bit {bit}: {len(shares)} models, the UDP share of the buffer at 10 Mbps "
                f"{min(shares):.3f}-{max(shares):.3f} (median {statistics.median(shares):.3f})"
            )
    lines += [f"  {json.dumps(r['model'])}" for r in hits if r["model"]["queue.drop_bit"] == "false"]
    return "\n".join(lines)


def run_model(job: tuple[dict[str, str], list[int]]) -> dict:
    import aqmlab

    model, seeds = job
    runs = []
    for seed in seeds:
        lf = aqmlab.run(SCENARIO, seed=seed, overrides=overrides(model)).link_flows
        udp = lf[lf["flow"] == "udp"].set_index("link")
        first, second = udp.loc["r2->r3"], udp.loc["r3->r4"]
        runs.append(
            {
                "seed": seed,
                "kbps_r2_r3": float(first["departures"]) * 8 / WINDOW_S,
                "loss_r3_r4": float(second["drops"]) / max(float(second["arrivals"]), 1.0),
            }
        )
    return {"model": model, "runs": runs}


def both_links(result: dict) -> bool:
    """The seeds' means within 10% of the paper on both links."""
    kbps = statistics.mean(r["kbps_r2_r3"] for r in result["runs"])
    loss = statistics.mean(r["loss_r3_r4"] for r in result["runs"])
    return search.near(kbps, PAPER_KBPS_R2_R3) and search.near(loss, PAPER_LOSS_R3_R4)


def ns2_1998(model: dict[str, str]) -> bool:
    """ns-2's 1998 TCP timers (100 ms ticks, no floor beyond two, no delayed ACKs) and RED defaults."""
    return (
        model["tcp.timer"] == "ns2"
        and model["tcp.min_rto"] in ("0s", "200ms")
        and model["tcp.delayed_ack"] == "false"
        and (model["queue.w_q"], model["queue.max_p"], model["queue.wait"], model["queue.gentle"])
        == ("0.002", "0.1", "true", "false")
    )


def summarise(results: list[dict]) -> str:
    hits = [r for r in results if both_links(r)]
    lines = [f"{len(hits)} of {len(results)} models within 10% of the paper on both links"]
    defaults = [r for r in results if ns2_1998(r["model"])]
    lines.append(f"with ns-2's 1998 timers and RED defaults: {sum(map(both_links, defaults))} of {len(defaults)}")
    for key in [*(f"tcp.{k}" for k in TCP_READINGS), *(f"queue.{k}" for k in QUEUE_READINGS)]:
        drawn: dict[str, int] = {}
        hit: dict[str, int] = {}
        for r in results:
            value = r["model"][key]
            drawn[value] = drawn.get(value, 0) + 1
            hit[value] = hit.get(value, 0) + both_links(r)
        lines.append(f"  {key}: " + ", ".join(f"{v} {hit[v]}/{drawn[v]}" for v in sorted(drawn)))
    return "\n".join(lines)


def main() -> None:
    parser = search.arguments(__doc__.split("\n\n")[0], models=3000, seeds=3, draw_seed=3)
    parser.add_argument("--figure", choices=("table1", "5"), default="table1", help="what to search (default table1)")
    args = search.parse(parser)
    rng = random.Random(args.draw_seed)
    jobs = [(draw(rng), list(range(1, args.seeds + 1))) for _ in range(args.models)]
    work = run_fig5_model if args.figure == "5" else run_model
    results = search.run_models(work, jobs, workers=args.workers, out=args.out, label="CHOKe models")
    print(summarise_fig5(results) if args.figure == "5" else summarise(results))


if __name__ == "__main__":
    main()
