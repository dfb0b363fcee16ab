"""The weights stage's cases, shared by both engines' harnesses: a draft, its target, a mode
and a checkpoint each.

The draft's config and its target are scaled down together
(``tools/harness/checkpoint.py``: ``shrink``), and a safetensors file of zeros carries the
tensor names the draft's checkpoint has (the real file's header where the fixture has one,
scaled with the configs; otherwise the layout its trainer writes, at the scaled sizes), with
at most one fault injected (a tensor dropped, one added). Each engine's harness
(``tools/engines/<engine>/harness/weights.py``) loads them through the engine's own loader;
:func:`lay_out` writes them without any engine or torch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tools.harness.checkpoint import read_header, scaled_shape, shrink, write_checkpoint
from tools.harness.corpus import Mode

__all__ = ["CASES", "ROOT", "Shapes", "WeightCase", "case_digest", "lay_out", "tensors_of"]

ROOT: Final = Path(__file__).resolve().parents[2]

Shapes = dict[str, tuple[str, tuple[int, ...]]]
_BF16: Final = "BF16"


def _attention_and_mlp(
    prefix: str, config: dict[str, Any], *, attention_in: int | None = None, qk_norm: bool
) -> Shapes:
    """One decoder layer's tensors, as Llama and Qwen3 checkpoints name them."""
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    kv = int(config.get("num_key_value_heads", heads))
    head = int(config.get("head_dim", hidden // heads))
    inner = int(config["intermediate_size"])
    width = attention_in if attention_in is not None else hidden
    shapes: dict[str, tuple[int, ...]] = {
        "self_attn.q_proj.weight": (heads * head, width),
        "self_attn.k_proj.weight": (kv * head, width),
        "self_attn.v_proj.weight": (kv * head, width),
        "self_attn.o_proj.weight": (hidden, heads * head),
        "mlp.gate_proj.weight": (inner, hidden),
        "mlp.up_proj.weight": (inner, hidden),
        "mlp.down_proj.weight": (hidden, inner),
        "input_layernorm.weight": (hidden,),
        "post_attention_layernorm.weight": (hidden,),
    }
    if qk_norm:
        shapes["self_attn.q_norm.weight"] = (head,)
        shapes["self_attn.k_norm.weight"] = (head,)
    return {f"{prefix}{name}": (_BF16, shape) for name, shape in shapes.items()}


def dflash_tensors(draft: dict[str, Any], target: dict[str, Any]) -> Shapes:
    """A z-lab DFlash checkpoint: ``layers.N.*``, ``fc`` as wide as the tapped layers (as
    many as the draft's layers where it names none),
    ``hidden_norm``, ``norm``; no embedding, no head (the target's are shared)."""
    hidden = int(draft["hidden_size"])
    named = (draft.get("dflash_config") or {}).get("target_layer_ids")
    # A draft naming no layers: as many as its own layers, the trainers' default.
    taps = len(named) if named else int(draft["num_hidden_layers"])
    tensors: Shapes = {"fc.weight": (_BF16, (hidden, taps * int(target["hidden_size"])))}
    for layer in range(int(draft["num_hidden_layers"])):
        tensors |= _attention_and_mlp(f"layers.{layer}.", draft, qk_norm=True)
    tensors["hidden_norm.weight"] = (_BF16, (hidden,))
    tensors["norm.weight"] = (_BF16, (hidden,))
    return tensors


def dspark_tensors(draft: dict[str, Any], target: dict[str, Any]) -> Shapes:
    """A SpecForge DSpark checkpoint: :func:`dflash_tensors` with ``fc`` as wide as the
    layers named at the top level (``target_layer_ids``), and the Markov head
    (``markov_head.markov_w1``, the target vocabulary by ``markov_rank``;
    ``markov_head.markov_w2``, the draft vocabulary by ``markov_rank``), as vLLM's
    ``qwen3_dspark.py: Qwen3DSparkModel`` holds them; no embedding, no head."""
    tensors = dflash_tensors(draft, target)
    named = draft.get("target_layer_ids")
    if named:
        hidden = int(draft["hidden_size"])
        tensors["fc.weight"] = (_BF16, (hidden, len(named) * int(target["hidden_size"])))
    vocab = int(draft["vocab_size"])
    rank = int(draft["markov_rank"])
    draft_vocab = int(draft.get("draft_vocab_size") or vocab)
    tensors["markov_head.markov_w1.weight"] = (_BF16, (vocab, rank))
    tensors["markov_head.markov_w2.weight"] = (_BF16, (draft_vocab, rank))
    return tensors


def eagle3_tensors(draft: dict[str, Any], target: dict[str, Any]) -> Shapes:
    """An EAGLE-3 head as its trainers write it: ``midlayer.*`` whose attention reads the
    embedding and the hidden state side by side, ``fc`` over three tapped layers, ``norm``,
    an ``lm_head`` over the draft vocabulary, ``d2t`` and ``t2d``; no embedding."""
    hidden = int(draft["hidden_size"])
    vocab = int(draft["vocab_size"])
    draft_vocab = int(draft.get("draft_vocab_size") or vocab)
    tensors: Shapes = {"fc.weight": (_BF16, (hidden, 3 * int(target["hidden_size"])))}
    tensors |= _attention_and_mlp("midlayer.", draft, attention_in=2 * hidden, qk_norm=False)
    tensors["midlayer.hidden_norm.weight"] = (_BF16, (hidden,))
    tensors["norm.weight"] = (_BF16, (hidden,))
    tensors["lm_head.weight"] = (_BF16, (draft_vocab, hidden))
    tensors["d2t"] = ("I64", (draft_vocab,))
    tensors["t2d"] = ("BOOL", (vocab,))
    return tensors


def ptd_eagle3_tensors(draft: dict[str, Any], target: dict[str, Any]) -> Shapes:
    """An EAGLE-3 head trained for parallel drafting (P-EAGLE): :func:`eagle3_tensors` and
    ``mask_hidden``, the hidden state of a masked slot, as wide as ``fc``'s input."""
    tensors = eagle3_tensors(draft, target)
    tensors["mask_hidden"] = (_BF16, (1, 3 * int(target["hidden_size"])))
    return tensors


def causal_lm_tensors(draft: dict[str, Any], target: dict[str, Any]) -> Shapes:
    """A Llama-family causal LM's checkpoint (PARD): ``model.embed_tokens``,
    ``model.layers.N.*``, ``model.norm``, and ``lm_head`` unless tied."""
    del target
    hidden = int(draft["hidden_size"])
    vocab = int(draft["vocab_size"])
    tensors: Shapes = {"model.embed_tokens.weight": (_BF16, (vocab, hidden))}
    qk_norm = draft.get("model_type") == "qwen3"
    for layer in range(int(draft["num_hidden_layers"])):
        tensors |= _attention_and_mlp(f"model.layers.{layer}.", draft, qk_norm=qk_norm)
    tensors["model.norm.weight"] = (_BF16, (hidden,))
    if not draft.get("tie_word_embeddings", False):
        tensors["lm_head.weight"] = (_BF16, (vocab, hidden))
    return tensors


Layout = Callable[[dict[str, Any], dict[str, Any]], Shapes]


@dataclass(frozen=True)
class WeightCase:
    """A draft, its target, the mode, the checkpoint's layout and at most one fault.

    ``header``: a safetensors file of the fixture whose names and shapes (scaled) the
    checkpoint takes; else ``layout`` writes them from the scaled configs. ``drop``: tensor
    names left out; ``add``: tensors put in (name -> dtype, shape at the scaled sizes, where
    ``"hidden"`` stands for the scaled draft's ``hidden_size``); ``widen``: tensors whose
    last dimension is multiplied (a trained width the config does not say). ``override``:
    top-level fields of the scaled draft's config set to another value (a draft that
    records what the fixture leaves to the engine).
    """

    name: str
    draft: str
    target: str
    mode: Mode
    layout: Layout | None = None
    header: str | None = None
    drop: tuple[str, ...] = ()
    add: tuple[tuple[str, str, tuple[int | str, ...]], ...] = ()
    narrow: tuple[tuple[str, int], ...] = ()
    fault: str = "none"
    override: tuple[tuple[str, Any], ...] = ()


_DFLASH: Final = Mode("dflash")
_EAGLE3: Final = Mode("eagle3")
_EAGLE3_PARALLEL: Final = Mode("eagle3", parallel_drafting=True)
_DRAFT_MODEL: Final = Mode("draft_model")
_DSPARK: Final = Mode("dspark")
_LLAMA3_8B: Final = "examples/pair-qwen3-8b-drafter-llama3-target/target/config.json"
_FC_WIDTH: Final = "examples/invalid/qwen3-dflash-fc-width"
_PTD: Final = "examples/ptd-eagle3-llama3-8b/config.json"
_MARKOV_HEAD: Final = ("markov_head_type", "vanilla")
"""What SpecForge's DSpark drafts record beside ``markov_rank`` and the example leaves out:
SGLang refuses a DSpark draft without it ("DSpark requires markov_head_type when
markov_rank > 0"); vLLM does not read it."""

CASES: Final[tuple[WeightCase, ...]] = (
    WeightCase(
        "qwen3-dflash-fc-width",
        f"{_FC_WIDTH}/config.json",
        "tests/real_configs/synthesized_targets/qwen3-tiny.json",
        _DFLASH,
        header=f"{_FC_WIDTH}/model.safetensors",
        fault="the fixture's own checkpoint: fc.weight trained for 5 taps, the config names 3",
    ),
    WeightCase(
        "qwen3-dflash-fc-width+fc-for-3-taps",
        f"{_FC_WIDTH}/config.json",
        "tests/real_configs/synthesized_targets/qwen3-tiny.json",
        _DFLASH,
        header=f"{_FC_WIDTH}/model.safetensors",
        narrow=(("fc.weight", 3),),
        fault="none: the fixture's checkpoint with fc.weight as wide as the 3 named taps",
    ),
    WeightCase(
        "dflash-qwen3-4b",
        "examples/dflash-qwen3-4b/config.json",
        "tests/real_configs/synthesized_targets/qwen3-4b.json",
        _DFLASH,
        layout=dflash_tensors,
    ),
    WeightCase(
        "dflash-qwen3-4b-no-fc",
        "examples/dflash-qwen3-4b/config.json",
        "tests/real_configs/synthesized_targets/qwen3-4b.json",
        _DFLASH,
        layout=dflash_tensors,
        drop=("fc.weight",),
        fault="fc.weight left out",
    ),
    WeightCase(
        "dflash-qwen3-4b-extra-tensor",
        "examples/dflash-qwen3-4b/config.json",
        "tests/real_configs/synthesized_targets/qwen3-4b.json",
        _DFLASH,
        layout=dflash_tensors,
        add=(("layers.0.self_attn.rotary_emb.extra.weight", _BF16, ("hidden",)),),
        fault="a tensor under rotary_emb. that no vLLM parameter has",
    ),
    WeightCase(
        "dflash-qwen3-4b-rotary-inv-freq",
        "examples/dflash-qwen3-4b/config.json",
        "tests/real_configs/synthesized_targets/qwen3-4b.json",
        _DFLASH,
        layout=dflash_tensors,
        add=(("layers.0.self_attn.rotary_emb.inv_freq", "F32", (64,)),),
        fault="none: rotary_emb.inv_freq, as older exports write it (vLLM skips it)",
    ),
    WeightCase("ptd-eagle3-llama3-8b", _PTD, _LLAMA3_8B, _EAGLE3, layout=eagle3_tensors),
    WeightCase(
        "ptd-eagle3-llama3-8b-no-d2t",
        _PTD,
        _LLAMA3_8B,
        _EAGLE3,
        layout=eagle3_tensors,
        drop=("d2t",),
        fault="d2t left out (draft_vocab_size is below vocab_size)",
    ),
    WeightCase(
        "ptd-eagle3-llama3-8b-no-lm-head",
        _PTD,
        _LLAMA3_8B,
        _EAGLE3,
        layout=eagle3_tensors,
        drop=("lm_head.weight",),
        fault="lm_head.weight left out (draft_vocab_size set)",
    ),
    WeightCase(
        "ptd-eagle3-llama3-8b+parallel",
        _PTD,
        _LLAMA3_8B,
        _EAGLE3_PARALLEL,
        layout=ptd_eagle3_tensors,
    ),
    WeightCase(
        "ptd-eagle3-llama3-8b+parallel-no-mask-hidden",
        _PTD,
        _LLAMA3_8B,
        _EAGLE3_PARALLEL,
        layout=ptd_eagle3_tensors,
        drop=("mask_hidden",),
        fault="mask_hidden left out, drafting in parallel",
    ),
    WeightCase(
        "pard-llama3-1b",
        "examples/pard-llama3-1b/config.json",
        _LLAMA3_8B,
        _DRAFT_MODEL,
        layout=causal_lm_tensors,
    ),
    WeightCase(
        "specforge--qwen3-8b-dflash",
        "tests/real_configs/drafts/specforge--qwen3-8b-dflash.json",
        "tests/real_configs/targets/qwen3-8b.json",
        _DFLASH,
        layout=dflash_tensors,
    ),
    WeightCase(
        "torchspec--qwen3_8b_dflash",
        "tests/real_configs/drafts/torchspec--qwen3_8b_dflash.json",
        "tests/real_configs/targets/qwen3-8b.json",
        _DFLASH,
        layout=dflash_tensors,
        fault="none: names no tapped layers; fc trained for as many as its 5 layers",
    ),
    WeightCase(
        "torchspec--qwen3_8b_dflash+fc-for-3-taps",
        "tests/real_configs/drafts/torchspec--qwen3_8b_dflash.json",
        "tests/real_configs/targets/qwen3-8b.json",
        _DFLASH,
        layout=dflash_tensors,
        narrow=(("fc.weight", 3),),
        fault="names no tapped layers; fc trained for 3 taps, not the engine's guess",
    ),
    WeightCase(
        "sglang--qwen3-8b-eagle3-ascend-fixture",
        "tests/real_configs/drafts/sglang--qwen3-8b-eagle3-ascend-fixture.json",
        "tests/real_configs/targets/qwen3-8b-sglang-fixture.json",
        _EAGLE3,
        layout=eagle3_tensors,
    ),
    WeightCase(
        "pard-llama3-1b-no-embedding",
        "examples/pard-llama3-1b/config.json",
        _LLAMA3_8B,
        _DRAFT_MODEL,
        layout=causal_lm_tensors,
        drop=("model.embed_tokens.weight",),
        fault="model.embed_tokens.weight left out (tied: the head is the embedding)",
    ),
    WeightCase(
        "dspark-qwen3-8b",
        "examples/dspark-qwen3-8b/config.json",
        "tests/real_configs/targets/qwen3-8b-sglang-fixture.json",
        _DSPARK,
        layout=dspark_tensors,
        override=(_MARKOV_HEAD,),
        fault="none: records no sample_from_anchor, so the engine assumes the anchor layout",
    ),
    WeightCase(
        "dspark-qwen3-8b+fill-in",
        "examples/dspark-qwen3-8b/config.json",
        "tests/real_configs/targets/qwen3-8b-sglang-fixture.json",
        _DSPARK,
        layout=dspark_tensors,
        override=(_MARKOV_HEAD, ("sample_from_anchor", False)),
        fault="none: records sample_from_anchor false, the fill-in layout",
    ),
    WeightCase(
        "dflash-qwen3-4b+causal",
        "examples/dflash-qwen3-4b/config.json",
        "tests/real_configs/synthesized_targets/qwen3-4b.json",
        _DFLASH,
        layout=dflash_tensors,
        override=(("is_causal", True),),
        fault="none: records is_causal true, so the engine runs it causal",
    ),
    WeightCase(
        "ptd-eagle3-llama3-8b+target-rope",
        _PTD,
        _LLAMA3_8B,
        _EAGLE3,
        layout=eagle3_tensors,
        override=(
            (
                "rope_scaling",
                {
                    "factor": 8.0,
                    "low_freq_factor": 1.0,
                    "high_freq_factor": 4.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
            ),
            ("rope_theta", 500000.0),
        ),
        fault="none: the target's rope_scaling and rope_theta copied into the draft",
    ),
)
"""Every case, in the order the readings list them."""


def _load(path: str) -> dict[str, Any]:
    config: dict[str, Any] = json.loads((ROOT / path).read_text(encoding="utf-8"))
    return config


def tensors_of(case: WeightCase) -> tuple[dict[str, Any], dict[str, Any], Shapes]:
    """The case's scaled draft and target configs and its checkpoint's tensors."""
    full_draft, full_target = _load(case.draft), _load(case.target)
    draft, target, factor = shrink(full_draft, full_target)
    draft.update(dict(case.override))
    if case.header is not None:
        tensors = {
            name: (dtype, scaled_shape(shape, full_draft, full_target, factor))
            for name, (dtype, shape) in read_header(ROOT / case.header).items()
        }
    else:
        assert case.layout is not None, case.name
        tensors = case.layout(draft, target)
    for name, taps in case.narrow:
        dtype, shape = tensors[name]
        tensors[name] = (dtype, (*shape[:-1], taps * int(target["hidden_size"])))
    tensors = {name: value for name, value in tensors.items() if name not in case.drop}
    hidden = int(draft["hidden_size"])
    for name, dtype, dims in case.add:
        tensors[name] = (dtype, tuple(hidden if dim == "hidden" else int(dim) for dim in dims))
    return draft, target, tensors


def lay_out(case: WeightCase, folder: Path) -> tuple[Path, Path, Path]:
    """Write the case's scaled draft (``draft/config.json``), target (``target.json``) and
    checkpoint (``draft/model.safetensors``) under ``folder``; return the three paths."""
    draft, target, tensors = tensors_of(case)
    (folder / "draft").mkdir(parents=True, exist_ok=True)
    draft_path = folder / "draft" / "config.json"
    target_path = folder / "target.json"
    draft_path.write_text(json.dumps(draft, indent=2), encoding="utf-8")
    target_path.write_text(json.dumps(target, indent=2), encoding="utf-8")
    weights = write_checkpoint(folder / "draft" / "model.safetensors", tensors)
    return draft_path, target_path, weights


def case_digest(case: WeightCase) -> str:
    """A hash of what the case loads: the scaled configs and the checkpoint's tensors."""
    draft, target, tensors = tensors_of(case)
    text = json.dumps(
        [draft, target, {name: [d, list(s)] for name, (d, s) in tensors.items()}],
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()
