"""Catalog-only GPU probe: correctness and Triton-vs-torch timing straight from the specs.

Independent of the engine (kernels/engine.py) so the catalog can be checked on the GPU early:
for every spec, correctness on CUDA in fp32/fp16/bf16 at a moderate size, then each bench case
timed with triton.testing.do_bench (median) for Triton and torch in the same run, and the
autotune configs of matmul/attention tried at their first bench case.

    python benchmarks/gpu_catalog_probe.py [--out DIR] [--no-autotune]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
import triton  # noqa: E402
from triton.testing import do_bench  # noqa: E402

import kernels.catalog  # noqa: E402,F401
from kernels.specs.spec import REGISTRY  # noqa: E402

SMALL = {  # moderate sizes for the correctness pass
    "vector_add": {"N": 1_000_003}, "vector_mul": {"N": 1_000_003},
    "softmax": {"M": 777, "N": 1000, "BLOCK_SIZE": 1024}, "softmax_looped": {"M": 300, "N": 5000},
    "matmul": {"M": 1000, "N": 777, "K": 555}, "layernorm": {"M": 1000, "N": 3000},
    "gelu": {"N": 1_000_003}, "attention": {"BATCH": 2, "HEADS": 3, "N_CTX": 1000, "HEAD_DIM": 64},
}


def check(spec, cfg, seed=0):
    gen = torch.Generator().manual_seed(seed)
    t = spec.make_inputs(cfg, "cuda", gen)
    for o in spec.outputs:
        t[o].fill_(float("nan"))
    spec.run_launch(lambda f: f, t, cfg)
    torch.cuda.synchronize()
    ref = spec.reference(t, cfg)
    atol, rtol = spec.tolerance(cfg)
    worst = []
    for name, r in ref.items():
        out = t[name].double()
        r = r.to(out.device).double()
        err = (out - r).abs()
        bad = ~(err <= atol + rtol * r.abs())
        rel = (torch.linalg.vector_norm(out - r) / torch.linalg.vector_norm(r)).item()
        worst.append((name, int(bad.sum().item()), float(err.nan_to_num(float("inf")).max().item()), rel))
    ok = all(b == 0 for _, b, _, _ in worst)
    return ok, worst


def time_case(spec, cfg, seed=0):
    gen = torch.Generator().manual_seed(seed)
    t = spec.make_inputs(cfg, "cuda", gen)
    k = spec.run_launch(lambda f: f, t, cfg)
    torch.cuda.synchronize()
    tr = do_bench(lambda: spec.run_launch(lambda f: f, t, cfg), warmup=25, rep=200, return_mode="median")
    th = do_bench(lambda: spec.torch_op(t, cfg), warmup=25, rep=200, return_mode="median") if spec.torch_op else None
    facts = {"n_regs": getattr(k, "n_regs", None), "n_spills": getattr(k, "n_spills", None),
             "shared": getattr(getattr(k, "metadata", None), "shared", None)}
    t.clear()
    torch.cuda.empty_cache()
    return tr, th, facts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    ap.add_argument("--no-autotune", action="store_true")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name(), flush=True)
    rec = {"versions": {"torch": torch.__version__, "triton": triton.__version__,
                        "gpu": torch.cuda.get_device_name()}, "check": [], "bench": [], "autotune": []}
    only = set(a.only.split(",")) if a.only else None
    # copy bandwidth peak
    x = torch.empty(2 * 1024**3 // 4, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), return_mode="median")
    copy_gbps = 2 * x.numel() * 4 / ms / 1e6
    print(f"copy bandwidth {copy_gbps:.0f} GB/s", flush=True)
    rec["copy_gbps"] = copy_gbps
    x = y = None  # free 4 GiB before the kernels run
    for spec in REGISTRY:
        if only and spec.name not in only:
            continue
        dts = spec.param("dtype").choices
        for dt in dts:
            base = dict(SMALL.get(spec.name, {}), dtype=dt)
            for extra in ({}, {"CAUSAL": True}) if spec.name == "attention" else ({},):
                cfg = spec.config({**base, **extra})
                t0 = time.time()
                try:
                    ok, worst = check(spec, cfg)
                except Exception as e:  # report and go on
                    ok, worst = False, [("error", 0, 0.0, 0.0)]
                    print("  ERROR", spec.name, dt, type(e).__name__, str(e)[:300], flush=True)
                print(f"check {spec.name:15s} {dt} {extra} {'PASS' if ok else 'FAIL'} {worst} {time.time()-t0:.1f}s", flush=True)
                rec["check"].append({"kernel": spec.name, "dtype": dt, "extra": extra, "ok": ok, "worst": worst})
        for case in spec.bench_cases:
            cfg = spec.config(case)
            try:
                tr, th, facts = time_case(spec, cfg)
            except Exception as e:
                print("  BENCH ERROR", spec.name, case, type(e).__name__, str(e)[:300], flush=True)
                continue
            work = spec.flops(cfg) if spec.metric == "TFLOP/s" else spec.bytes_moved(cfg)
            rate = work / tr / (1e9 if spec.metric == "TFLOP/s" else 1e6)
            ratio = th / tr if th else None
            print(f"bench {spec.name:15s} {case} triton {tr:.4f} ms torch {th:.4f} ms ratio {ratio:.3f} "
                  f"{rate:.1f} {spec.metric} {facts}", flush=True)
            rec["bench"].append({"kernel": spec.name, "case": case, "triton_ms": tr, "torch_ms": th,
                                 "ratio": ratio, "rate": rate, "metric": spec.metric, "facts": facts})
        if spec.autotune_configs and spec.bench_cases and not a.no_autotune:
            for case in spec.bench_cases[:1]:
                for ac in spec.autotune_configs:
                    cfg = spec.config({**case, **ac})
                    try:
                        tr, th, facts = time_case(spec, cfg)
                    except Exception as e:
                        print("  AT ERROR", spec.name, ac, type(e).__name__, str(e)[:200], flush=True)
                        continue
                    print(f"autotune {spec.name} {ac} triton {tr:.4f} torch {th:.4f} ratio {th/tr:.3f} {facts}", flush=True)
                    rec["autotune"].append({"kernel": spec.name, "case": case, "config": ac, "triton_ms": tr,
                                            "torch_ms": th, "ratio": th / tr, "facts": facts})
    with open(os.path.join(a.out, "catalog_probe.json"), "w") as f:
        json.dump(rec, f, indent=1, default=str)
    print("SUMMARY")
    for c in rec["check"]:
        if not c["ok"]:
            print("  FAIL", c["kernel"], c["dtype"], c["extra"], c["worst"])
    for b in rec["bench"]:
        print(f"  {b['kernel']:15s} {json.dumps({k: v for k, v in b['case'].items() if k in ('N','M','K','dtype','CAUSAL','APPROX_TANH')})} ratio {b['ratio']:.3f}")


if __name__ == "__main__":
    main()
