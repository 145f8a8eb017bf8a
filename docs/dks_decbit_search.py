"""Does any reading of the selective DECbit gateway give DKS scenario 5's DEC/DEC column?

The paper's three short paths get 2377-2406 packets at round trips of 0.617-0.626 s and its long
path 783 at 1.55 s; its gateway's rules (DEC TR-510) could not be found. aqmlab's `decbit` gateway
has two readings, selective (bits for the conversations at or above their max-min share of
`capacity_factor` of the line) or not, and open constants. This diagnostic draws models at random:
the reading, its constants (the share's capacity, the queue threshold, what a conversation is),
the DECbit source's open details (its window rounded or truncated, its timer's beta and gain) and
a propagation delay on the host links (the paper's 9% idle line needs delays its text does not
state), runs each on several seeds and counts the models whose seven throughputs and round trips
are all within 10% of the paper's. Nothing here changes a reproduction; docs/reproductions.md
quotes its summary.

    python docs/dks_decbit_search.py --models 3000 --seeds 2 --workers 2 --out decbit_models.jsonl
"""

from __future__ import annotations

import random
import statistics

from aqmlab.reproduce import search

GATEWAY_READINGS: dict[str, list[str]] = {
    "selective": ["true", "false"],
    "capacity_factor": ["0.7", "0.8", "0.85", "0.9", "0.95", "1.0"],
    "threshold": ["0.5", "1", "2"],
    "user": ["pair", "source", "flow"],
}
SOURCE_READINGS: dict[str, list[str]] = {
    "window": ["rounded", "truncated"],
    "beta": ["2", "3"],
    "gain": ["0.125", "0.25"],
}
DELAYS = ["0ms", "5ms", "20ms", "50ms", "100ms"]
GATEWAY_LINES = ("ab", "bc", "cd")
HOST_LINKS = ("s1->ga", "s4->ga", "s2->gb", "s3->gc")
#: The paper's column: FTPs 1-3 on the short paths, FTP 4 on the long one.
PAPER_PACKETS = (2395, 2406, 2377, 783)
PAPER_RTT_S = (0.617, 0.626, 0.618, 1.55)


def draw(rng: random.Random) -> dict[str, str]:
    model = search.choose(rng, GATEWAY_READINGS, "gateway.") | search.choose(rng, SOURCE_READINGS, "source.")
    return model | {"delay": rng.choice(DELAYS)}


def overrides(base: dict[str, str], model: dict[str, str]) -> dict[str, str]:
    out = dict(base)
    for name, value in model.items():
        kind, _, key = name.partition(".")
        if kind == "gateway":
            out.update({f"link.{line}.queue.{key}": value for line in GATEWAY_LINES})
        elif kind == "source":
            out.update({f"flow.{flow}.{key}": value for flow in ("ftp{i}", "ftp4")})
        else:
            out.update({f"link.{link}.delay": value for link in HOST_LINKS})
    return out


def run_model(job: tuple[dict[str, str], list[int]]) -> dict:
    import aqmlab
    from aqmlab.reproduce import EXPERIMENTS

    model, seeds = job
    experiment = EXPERIMENTS["dks-1989-scenario5"]
    condition = next(c for c in experiment.conditions() if c.label == "DEC/DEC")
    runs = []
    for seed in seeds:
        flows = aqmlab.run(
            experiment.scenario_path(condition), seed=seed, overrides=overrides(condition.overrides, model)
        ).flows.set_index("name")
        ftps = [f"ftp{i}" for i in range(1, 5)]
        runs.append(
            {
                "seed": seed,
                "packets": [int(flows.loc[f, "delivered_pkts"]) for f in ftps],
                "rtt_s": [float(flows.loc[f, "mean_rtt_s"]) for f in ftps],
            }
        )
    return {"model": model, "runs": runs}


def means(result: dict, key: str) -> list[float]:
    return [statistics.mean(r[key][i] for r in result["runs"]) for i in range(4)]


def matched(result: dict) -> tuple[int, int]:
    """How many of the four throughputs, and of the four round trips, are within 10% of the paper's."""
    packets = sum(map(search.near, means(result, "packets"), PAPER_PACKETS))
    rtts = sum(map(search.near, means(result, "rtt_s"), PAPER_RTT_S))
    return packets, rtts


def summarise(results: list[dict]) -> str:
    counts = [matched(r) for r in results]
    both = [r for r, c in zip(results, counts, strict=True) if c == (4, 4)]
    packets = [r for r, c in zip(results, counts, strict=True) if c[0] == 4]
    rtts = [r for r, c in zip(results, counts, strict=True) if c[1] == 4]
    lines = [f"{len(both)} of {len(results)} models within 10% of all eight of the paper's numbers"]
    for label, group in (("throughputs", packets), ("round trips", rtts)):
        if group:
            readings = sorted({r["model"]["gateway.selective"] for r in group})
            delays = sorted({r["model"]["delay"] for r in group}, key=lambda d: float(d[:-2]))
            long_path = [means(r, "packets")[3] for r in group]
            short_rtt = [means(r, "rtt_s")[0] for r in group]
            lines.append(
                f"all four {label}: {len(group)} models (selective: {', '.join(readings)}; delays "
                f"{', '.join(delays)}); the long path {min(long_path):.0f}-{max(long_path):.0f} packets, "
                f"a short path's round trip {min(short_rtt):.3f}-{max(short_rtt):.3f} s"
            )
    for selective in ("true", "false"):
        group = [r for r in results if r["model"]["gateway.selective"] == selective]
        long_path = [means(r, "packets")[3] for r in group]
        lines.append(
            f"selective = {selective}: the long path {min(long_path):.0f}-{max(long_path):.0f} packets "
            f"(median {statistics.median(long_path):.0f}) over {len(group)} models"
        )
    return "\n".join(lines)


def main() -> None:
    search.main(
        __doc__,
        draw=draw,
        work=run_model,
        summarise=summarise,
        models=3000,
        seeds=2,
        draw_seed=2,
        label="DECbit models",
    )


if __name__ == "__main__":
    main()
