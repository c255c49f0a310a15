"""Data checks for scripts/batch_sweeps.csv (issue 39) and the README parser that derives most
of it (scripts/derive_batch_sweeps.py).

The table is transcribed by a parser from public tables; these tests catch what such a parser
or a hand edit gets wrong: a GPU outside the catalog or with the wrong memory, a batch given to
the wrong precision, a sweep that is one batch, a throughput that falls with the batch without
a note saying so, a row with no page or date behind it, a Lambda Labs figure (the project's
independent check, never fitted on).
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import pytest

from costcalc.store.bundled import load_catalog
from scripts.derive_batch_sweeps import (
    FIELDS,
    README,
    Readme,
    Variant,
    sweep_key,
    table_figures,
    training_tables,
)

CSV = Path(__file__).parents[2] / "scripts" / "batch_sweeps.csv"
KINDS = {"cnn", "transformer", "rnn"}
PRECISIONS = {"fp32", "tf32", "amp_fp16", "amp_bf16", "fp16", "bf16"}
POLICIES = {"sweep", "max_per_gpu", "fixed"}
DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")


def read() -> tuple[list[str], list[dict[str, str]]]:
    lines = CSV.read_text("utf-8").splitlines()
    header = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return header, rows


HEADER, ROWS = read()


def test_columns_and_size() -> None:
    with CSV.open(encoding="utf-8") as handle:
        names = next(csv.reader(line for line in handle if not line.startswith("#")))
    assert names == FIELDS
    assert len(ROWS) >= 150


def test_every_gpu_is_a_catalog_key_with_its_memory() -> None:
    memory = {spec.key: spec.memory_gb for spec in load_catalog()}
    for row in ROWS:
        assert row["gpu"] in memory, row
        assert float(row["gpu_memory_gb"]) == memory[row["gpu"]], row


@pytest.mark.parametrize(
    "row", ROWS, ids=lambda r: f"{r['source']}-{r['gpu']}-{r['batch_per_gpu']}"
)
def test_row_values(row: dict[str, str]) -> None:
    assert int(row["batch_per_gpu"]) > 0
    assert float(row["throughput"]) > 0
    assert row["gpus"] == "1"
    assert row["kind"] in KINDS
    assert row["precision"] in PRECISIONS
    assert row["batch_policy"] in POLICIES
    assert row["batch_unit"] in {"items", "tokens"}
    assert row["seq_len"] == "" or int(row["seq_len"]) > 0
    assert row["url"].startswith("https://github.com/")
    assert re.fullmatch(r"https://github.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/\S+", row["url"])
    assert DATE.fullmatch(row["retrieved"]) and DATE.fullmatch(row["measured"])
    assert row["licence"] and row["model"] and row["unit"] and row["framework"]


def test_no_lambda_labs_figure() -> None:
    for row in ROWS:
        assert "lambda" not in " ".join(row.values()).lower(), row


def test_every_source_is_named_in_the_header() -> None:
    text = "\n".join(HEADER)
    for source in {row["source"] for row in ROWS}:
        assert source in text or (source.startswith("dle_") and "dle_*" in text), source


def test_throughput_does_not_fall_with_the_batch_unless_a_note_says_so() -> None:
    sweeps: dict[tuple[str, ...], list[dict[str, str]]] = defaultdict(list)
    for row in ROWS:
        sweeps[sweep_key(row)].append(row)
    for members in sweeps.values():
        best = 0.0
        for row in sorted(members, key=lambda r: int(r["batch_per_gpu"])):
            speed = float(row["throughput"])
            if "falls below batch" in row["notes"]:
                assert speed < best, row  # a stale note: the row no longer falls
            else:
                assert speed >= best, row
                best = speed


def test_a_sweep_has_several_batches_and_the_other_policies_one() -> None:
    batches: dict[tuple[str, ...], set[int]] = defaultdict(set)
    policies: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for row in ROWS:
        batches[sweep_key(row)].add(int(row["batch_per_gpu"]))
        policies[sweep_key(row)].add(row["batch_policy"])
    for key, found in policies.items():
        assert len(found) == 1, key
        assert (len(batches[key]) > 1) == (found == {"sweep"}), key


def test_no_figure_twice_on_one_page() -> None:
    seen = set()
    for row in ROWS:
        key = (*sweep_key(row), row["batch_per_gpu"])
        assert key not in seen, row
        seen.add(key)


def test_coverage_the_issue_asks_for() -> None:
    swept = defaultdict(set)
    for row in ROWS:
        if row["batch_policy"] == "sweep":
            swept[row["kind"]].add(row["source"].split("_")[0])
    assert len(swept["transformer"]) >= 3  # dle, neusight, mli
    assert swept["rnn"] and swept["cnn"]
    transformer_sweeps = [r for r in ROWS if r["kind"] == "transformer" and r["seq_len"]]
    assert len(transformer_sweeps) >= 50


# --- the README parser, on README excerpts written for these tests ---------------------------

BERT = Readme(
    "X/README.md",
    "dle_test",
    "transformer",
    "TensorFlow 1",
    "sequences/s",
    (Variant("Pre-training", "BERT pre-training"), Variant(".", "BERT other")),
)


def table(header: list[str], *rows: list[object]) -> str:
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(str(c) for c in line) + " |" for line in lines) + "\n"


def figures(readme: Readme, text: str) -> list[tuple[str, str, str, int, int | None, float]]:
    return [
        (f.model, f.gpu, f.precision, f.batch, f.seq_len, f.throughput)
        for found in training_tables(text)
        for f in table_figures(readme, found)
    ]


def test_a_two_batch_cell_goes_to_the_precisions_in_the_order_its_header_names_them() -> None:
    header = ["**GPUs**", "**Sequence Length**", "**Batch size / GPU: mixed precision, FP32**"]
    header += ["**Throughput - mixed precision**", "**Throughput - FP32**"]
    text = (
        "#### Training performance results\n"
        "##### Training performance: NVIDIA DGX-1 (8x V100 16GB)\n"
        "###### Pre-training training performance: single-node on DGX-1 16GB\n"
        + table(header, [1, 128, "16 , 8", 134.34, 39.43], [8, 128, "16 , 8", 1001.39, 285.79])
        + "#### Inference performance results\n"
        + table(header, [1, 128, "16 , 8", 999, 999])
    )
    assert figures(BERT, text) == [
        ("BERT pre-training", "v100_sxm2_16gb", "amp_fp16", 16, 128, 134.34),
        ("BERT pre-training", "v100_sxm2_16gb", "fp32", 8, 128, 39.43),
    ]


def test_tagged_batches_a_tf32_table_and_a_gpu_outside_the_catalog() -> None:
    header = ["Number of GPUs", "Batch size per GPU", "Number of mels used with mixed precision"]
    text = (
        "#### Training performance results\n"
        "##### Training performance: NVIDIA DGX A100 (8x A100 40GB)\n"
        + table(
            [*header, "Number of mels used with TF32"], [1, "10@FP16, 4@TF32", "149,479", "67,581"]
        )
        + "\n##### Training performance: NVIDIA DGX-2 (16x V100 32GB)\n"
        + table([*header, "Number of mels used with FP32"], [1, "10@FP16, 4@FP32", "100,000", 30])
    )
    readme = Readme("X/README.md", "dle_test", "rnn", "PyTorch", "mels/s", (Variant(".", "T2"),))
    assert figures(readme, text) == [
        ("T2", "a100_sxm4_40gb", "amp_fp16", 10, None, 149479.0),
        ("T2", "a100_sxm4_40gb", "tf32", 4, None, 67581.0),
    ]


def test_a_multi_node_table_and_a_multi_gpu_row_are_left_out() -> None:
    header = ["GPUs", "Batch size / GPU", "Throughput - TF32", "Throughput - mixed precision"]
    text = (
        "#### Training performance results\n"
        "##### Training performance: NVIDIA DGX A100 (8x A100 80GB)\n"
        + table(["Nodes", *header], [1, 8, 32, 500, 900])
        + "\n"
        + table(header, [8, 32, 400, 800], [1, 32, 55.5, 99], [1, 64, "N/A", 120])
    )
    assert figures(BERT, text) == [
        ("BERT other", "a100_sxm4_80gb", "tf32", 32, None, 55.5),
        ("BERT other", "a100_sxm4_80gb", "amp_fp16", 32, None, 99.0),
        ("BERT other", "a100_sxm4_80gb", "amp_fp16", 64, None, 120.0),
    ]


def test_every_configured_readme_names_a_kind_the_predictor_has() -> None:
    assert {readme.kind for readme in README} <= KINDS
    assert len({readme.source for readme in README}) == len(README)
