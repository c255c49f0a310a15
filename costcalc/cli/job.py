"""`costcalc job`: name the model and the data, get memory, time, cost, energy and CO2 of one run
on your GPU, on every cloud offer that holds it and on the desktops that can."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from costcalc.cli import output

if TYPE_CHECKING:
    from costcalc.core.job import Job, ModelSpec
    from costcalc.core.job_cost import JobData, RunSetup

EXAMPLES = (
    "costcalc job --model llama-3.1-8b --method lora --tokens 2e8 --gpu rtx3090",
    "costcalc job --model llama-3.2-1b --tokens 20B --gpu h100sxm --count 8",
    "costcalc job --model llama-3.1-8b --serve --tokens-per-day 2e6 --gpu rtx3090",
)
SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def amount(what: str) -> Any:
    """A parser of counts as people write them: 2e8, 200M, 2T, 1.28M, 200,000,000."""

    def parse(text: str) -> float:
        from costcalc.core.errors import CostcalcError
        from costcalc.core.inputs import number

        raw = text.strip()
        scale = SUFFIXES.get(raw[-1:].lower(), 1.0) if raw else 1.0
        try:
            value = number(raw[:-1] if scale != 1.0 else raw, what)
        except CostcalcError as e:
            raise argparse.ArgumentTypeError(f"{e}; write it as 2e8, 200M or 2T") from None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(f"{what} must be a positive number, got {text!r}")
        return value * scale

    return parse


def register(sub: Any) -> None:
    from costcalc.core.constants import DTYPES, METHODS, OPTIMIZERS, SHARDINGS

    p = sub.add_parser(
        "job",
        help="price a training job: memory, hours, cost, kWh and CO2 per run, everywhere",
        description=(
            "Name the model and the data; get the memory per GPU (weights, gradients, "
            "optimizer state, activations, as ZeRO, Korthikanti et al. and QLoRA count them), "
            "whether it fits and what would, the hours (training FLOPs over what the GPU's matmuls "
            "sustain times the share public runs reach, with its band), and the cost, energy and "
            "CO2 of one "
            "run on your GPU, on every cloud offer that holds it and on the desktops that can. "
            "Clusters up to 1,024 GPUs; desktops up to 8 with the physical checks."
        ),
        **output.examples(*EXAMPLES),
    )
    model = p.add_argument_group("the model")
    model.add_argument(
        "--model", metavar="NAME", help="a bundled model (--list-models), e.g. llama-3.1-8b"
    )
    model.add_argument("--list-models", action="store_true", help="list the bundled models")
    model.add_argument(
        "--params", type=amount("--params"), metavar="N", help="any other model: its parameters"
    )
    model.add_argument("--layers", type=int, metavar="L", help="with --params: its layers")
    model.add_argument("--hidden", type=int, metavar="H", help="with --params: its width")
    model.add_argument("--heads", type=int, metavar="N", help="with --params: attention heads")
    model.add_argument(
        "--vocab", type=int, metavar="V", help="with --params: vocabulary (default 32,000)"
    )
    model.add_argument(
        "--gflops-per-item",
        type=amount("--gflops-per-item"),
        metavar="G",
        help="forward multiply-adds of one item in billions (a vision or diffusion model)",
    )
    data = p.add_argument_group("the data and how it trains")
    data.add_argument("--tokens", type=amount("--tokens"), metavar="T", help="tokens (2e8, 200M)")
    data.add_argument("--epochs", type=amount("--epochs"), metavar="E", help="epochs ...")
    data.add_argument(
        "--dataset-items",
        type=amount("--dataset-items"),
        metavar="N",
        help="... of N sequences, images or audio windows each",
    )
    data.add_argument("--seq", type=int, metavar="S", help="tokens per sequence")
    data.add_argument("--method", choices=METHODS, default="full", help="default full")
    data.add_argument("--lora-rank", type=int, default=16, metavar="R", help="default 16")
    data.add_argument("--precision", choices=DTYPES, default="bf16", help="default bf16")
    data.add_argument("--optimizer", choices=OPTIMIZERS, default="adamw", help="default adamw")
    data.add_argument("--checkpointing", action="store_true", help="full activation checkpointing")
    data.add_argument("--sharding", choices=SHARDINGS, default="none", help="default none")
    data.add_argument("--batch", type=int, default=1, metavar="N", help="items per GPU (1)")
    serve = p.add_argument_group(
        "serving it (--serve): $ per million tokens, desktop, rented, hosted"
    )
    serve.add_argument("--serve", action="store_true", help="price serving the model, not training")
    serve.add_argument(
        "--quant", choices=("fp16", "fp8", "int8", "int4"), default="int4", help="default int4"
    )
    serve.add_argument(
        "--engine", default="llama.cpp", metavar="NAME", help="llama.cpp (default), MLC, ExLlama"
    )
    serve.add_argument(
        "--prompt-tokens", type=int, default=512, metavar="N", help="a request's prompt (512)"
    )
    serve.add_argument(
        "--output-tokens", type=int, default=128, metavar="N", help="its answer (128)"
    )
    serve.add_argument(
        "--context", type=int, metavar="N", help="tokens each sequence holds (prompt + answer)"
    )
    serve.add_argument(
        "--concurrency", type=int, default=1, metavar="N", help="sequences at once (1)"
    )
    serve.add_argument(
        "--tokens-per-day", type=amount("--tokens-per-day"), metavar="T", help="input + output"
    )
    serve.add_argument(
        "--requests-per-day", type=amount("--requests-per-day"), metavar="N", help="... or requests"
    )
    serve.add_argument(
        "--horizon-years", type=amount("--horizon-years"), metavar="Y", help="purchase over (3)"
    )
    where = p.add_argument_group("where it runs")
    where.add_argument(
        "--gpu",
        metavar="NAME",
        help="your GPU: a desktop card is your desktop, a data-centre part a cluster of it",
    )
    where.add_argument("--count", type=int, metavar="N", help="GPUs (default: fewest that hold it)")
    where.add_argument("--cloud-gpu", metavar="NAME", help="the GPU of your own offer")
    where.add_argument(
        "--cloud-price", type=amount("--cloud-price"), metavar="USD", help="your price ..."
    )
    where.add_argument(
        "--price-per",
        choices=("gpu", "instance"),
        default="gpu",
        help="... per GPU-hour (default) or per hour of one server of up to 8",
    )
    where.add_argument("--pue", type=amount("--pue"), metavar="P", help="your data centre's PUE")
    where.add_argument(
        "--grid-g-per-kwh", type=amount("--grid-g-per-kwh"), metavar="G", help="your grid"
    )
    where.add_argument(
        "--watts-per-gpu",
        type=amount("--watts-per-gpu"),
        metavar="W",
        help="measured whole-system draw per GPU (host share included)",
    )
    where.add_argument("--region", metavar="CODE", help="your desktop's region (US, DE, US-CA)")
    where.add_argument("--kwh-price", type=amount("--kwh-price"), metavar="USD", help="per kWh")
    where.add_argument(
        "--runs-per-year", type=amount("--runs-per-year"), metavar="N", help="cost a year"
    )
    p.add_argument("--top", type=int, default=None, metavar="N", help="offers shown (6; JSON 10)")
    p.add_argument("--all", action="store_true", help="every offer that holds it")
    p.add_argument("--explain", action="store_true", help="where every figure comes from")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    from costcalc.core.job_cost import price_job
    from costcalc.present import job_report

    if ns.list_models:
        return _list_models(ns)
    if ns.serve:
        return _serve(ns)
    job = build_job(ns)
    setup = build_setup(ns)
    data = load_job_data(setup)
    answer = price_job(job, setup, data)
    if ns.json:
        import json

        top = None if ns.all else (ns.top or 10)
        doc = job_report.to_json(answer, top=top, explain=ns.explain)
        print(json.dumps(doc, indent=2, default=str))
        return 0
    width = output.width()
    rows = len(answer.offers) if ns.all else (ns.top or job_report.OFFER_ROWS)
    print(job_report.to_text(answer, width, offers=rows))
    if ns.explain:
        from costcalc.core.terminal import fill_all
        from costcalc.present.explain import to_text

        print()
        print("\n".join(fill_all([to_text(job_report.explanation(answer))], width)))
    output.notes(list(answer.notes))
    return 0


def model_of(ns: argparse.Namespace) -> ModelSpec:
    from costcalc.core.errors import CostcalcError
    from costcalc.core.job import custom_model

    shape = (ns.params, ns.layers, ns.hidden)
    if ns.model is not None:
        if any(v is not None for v in shape):
            raise CostcalcError("give --model or --params/--layers/--hidden, not both")
        from costcalc.store.bundled import load_models

        return load_models().resolve(ns.model)
    if all(v is not None for v in shape):
        for name, value in (("--layers", ns.layers), ("--hidden", ns.hidden)):
            if value < 1:
                raise CostcalcError(f"{name} must be at least 1, got {value}")
        return custom_model(
            params=ns.params,
            layers=ns.layers,
            hidden=ns.hidden,
            heads=ns.heads,
            vocab=ns.vocab,
            seq=ns.seq,
            gflops_per_item=ns.gflops_per_item,
        )
    raise CostcalcError(
        "name the model: --model llama-3.1-8b (--list-models), or its shape with --params 7e9 "
        "--layers 32 --hidden 4096"
    )


def build_job(ns: argparse.Namespace) -> Job:
    """The job the flags describe, checked as every record from a user is (one line if not)."""
    from msgspec.structs import replace

    from costcalc.core.errors import CostcalcError
    from costcalc.core.job import Job
    from costcalc.core.records import ValidationError, plain, problem, validated

    spec = model_of(ns)
    if ns.gflops_per_item is not None and spec.key != "custom":
        spec = replace(spec, gflops_per_item=ns.gflops_per_item)
    if ns.tokens is None and (ns.epochs is None or ns.dataset_items is None):
        raise CostcalcError("give --tokens, or --epochs with --dataset-items")
    values = {
        "model": plain(spec),
        "method": ns.method,
        "tokens": ns.tokens,
        "epochs": ns.epochs,
        "dataset_items": ns.dataset_items,
        "seq": ns.seq,
        "precision": ns.precision,
        "optimizer": ns.optimizer,
        "checkpointing": ns.checkpointing,
        "sharding": ns.sharding,
        "batch": ns.batch,
        "lora_rank": ns.lora_rank,
    }
    try:
        return validated(Job, {k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        raise CostcalcError(_flag_words(problem(exc))) from None


def build_setup(ns: argparse.Namespace) -> RunSetup:
    from costcalc.core.errors import CostcalcError
    from costcalc.core.job_cost import RunSetup
    from costcalc.core.records import ValidationError, problem, validated

    values = {
        "gpu": ns.gpu,
        "gpu_count": ns.count,
        "cloud_gpu": ns.cloud_gpu,
        "cloud_price_usd": ns.cloud_price,
        "price_per": ns.price_per,
        "pue": ns.pue,
        "grid_gco2_per_kwh": ns.grid_g_per_kwh,
        "watts_per_gpu": ns.watts_per_gpu,
        "runs_per_year": ns.runs_per_year,
        "home_region": ns.region,
        "usd_per_kwh": ns.kwh_price,
    }
    if ns.cloud_price is not None and ns.gpu is None and ns.cloud_gpu is None:
        raise CostcalcError("--cloud-price prices a GPU: name it with --cloud-gpu (or --gpu)")
    try:
        return validated(RunSetup, {k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        raise CostcalcError(_flag_words(problem(exc))) from None


def _serve(ns: argparse.Namespace) -> int:
    from costcalc.core.errors import CostcalcError
    from costcalc.core.serve import ServeJob, ServeSetup, price_serving
    from costcalc.present import serve_report

    if ns.tokens is not None or ns.epochs is not None:
        raise CostcalcError("--serve prices serving: give --tokens-per-day, not --tokens")
    if ns.tokens_per_day is not None and ns.requests_per_day is not None:
        raise CostcalcError("give --tokens-per-day or --requests-per-day, not both")
    spec = model_of(ns)
    job = _validated(
        ServeJob,
        {
            "model": spec,
            "quant": ns.quant,
            "engine": ns.engine,
            "prompt_tokens": ns.prompt_tokens,
            "output_tokens": ns.output_tokens,
            "context": ns.context,
            "concurrency": ns.concurrency,
            "tokens_per_day": ns.tokens_per_day,
            "requests_per_day": ns.requests_per_day,
        },
    )
    setup = _validated(
        ServeSetup,
        {
            "gpu": ns.gpu,
            "gpu_count": ns.count,
            "usd_per_kwh": ns.kwh_price,
            "horizon_years": ns.horizon_years,
            "watts_per_gpu": ns.watts_per_gpu,
        },
    )
    answer = price_serving(job, setup, load_serve_data(ns.region))
    if ns.json:
        import json

        top = None if ns.all else (ns.top or 10)
        print(json.dumps(serve_report.to_json(answer, top=top), indent=2, default=str))
        return 0
    width = output.width()
    rows = len(answer.offers) if ns.all else (ns.top or serve_report.OFFER_ROWS)
    print(serve_report.to_text(answer, width, offers=rows))
    output.notes(list(answer.notes))
    return 0


def _validated(cls: Any, values: dict[str, Any]) -> Any:
    """A record from the flags, checked as every record from a user is (one line if not)."""
    from costcalc.core.errors import CostcalcError
    from costcalc.core.records import Record, ValidationError, plain, problem, validated

    given = {
        k: plain(v) if isinstance(v, Record) else v for k, v in values.items() if v is not None
    }
    try:
        return validated(cls, given)
    except ValidationError as exc:
        raise CostcalcError(_flag_words(problem(exc))) from None


def load_serve_data(region: str | None) -> Any:
    from costcalc.store.bundled import serve_data
    from costcalc.store.loaders import load_app_data

    return serve_data(load_app_data(), region)


FLAGS = {
    "gpu_count": "--count",
    "cloud_price_usd": "--cloud-price",
    "grid_gco2_per_kwh": "--grid-g-per-kwh",
    "usd_per_kwh": "--kwh-price",
    "home_region": "--region",
    "tokens_per_day": "--tokens-per-day",
    "requests_per_day": "--requests-per-day",
    "prompt_tokens": "--prompt-tokens",
    "output_tokens": "--output-tokens",
}


def _flag_words(message: str) -> str:
    """A record's message in the flags' words: 'gpu_count: expected ...' -> '--count: ...'."""
    field, _, rest = message.partition(":")
    if not rest:
        return message
    flag = FLAGS.get(field, "--" + field.replace("_", "-"))
    return f"{flag}:{rest}"


def load_job_data(setup: RunSetup) -> JobData:
    from costcalc.store.bundled import job_data
    from costcalc.store.loaders import load_app_data

    return job_data(load_app_data(), setup.home_region)


def _list_models(ns: argparse.Namespace) -> int:
    from costcalc.present.report import Plain, render_table
    from costcalc.store.bundled import load_models

    rows = [
        {
            "key": m.key,
            "name": m.name,
            "params": f"{m.params / 1e9:.3g}B" if m.params else "-",
            "kind": m.kind,
        }
        for m in load_models()
    ]
    columns = (
        Plain("key", "key", numeric=False),
        Plain("name", "name", numeric=False, clip=True),
        Plain("params", "params"),
        Plain("kind", "kind", numeric=False),
    )
    print(render_table(columns, rows, width=output.width(), priority=("key", "params", "name")))
    return 0
