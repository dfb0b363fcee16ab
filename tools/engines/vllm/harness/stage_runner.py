"""Run the released vLLM's own load path for one (draft, target, mode); print one JSON line.

This script runs *inside* one of the harness's virtual environments (a vLLM release, 0.33.0
or 0.34.0, installed without its dependencies beside the CPU torch 2.13.0; see
``environment.py``), one fresh process per run, because vLLM's global state (the current
config, the model-parallel groups, the registry's caches) does not reset. It imports nothing
of ``drafting_config``.


    python stage_runner.py --draft DRAFT_DIR --target TARGET_DIR --method dflash \
        [--parallel-drafting] [--num-speculative-tokens K] [--weights FILE]
    python stage_runner.py --serve   # requests on stdin, one JSON object a line

``--serve`` imports vLLM once and forks a child per request (``tools/harness/serve.py``,
shared with the SGLang harness, as are the exception's record and the report's line): each
run still starts from a process in which vLLM has never been configured.

It walks the stages in the order vLLM's GPU worker runs them and stops at the first that
raises:

``config``
    ``EngineArgs(...).create_engine_config()``: both ``ModelConfig``s (config parsing, the
    registry's ``inspect_model_cls``, the method's architecture renames),
    ``SpeculativeConfig``, ``VllmConfig``.
``speculator``
    The speculator of the runner vLLM picks: up to 0.33.0 ``VllmConfig.use_v2_model_runner``
    picks the newer runner's ``vllm.v1.worker.gpu.spec_decode.init_speculator`` or the
    older runner's proposer class, chosen as ``GPUModelRunner.__init__`` chooses it; from
    0.34.0 there is one runner (the newer one; ``use_v2_model_runner`` is gone) and
    ``init_speculator`` builds the speculator its ``speculator_config`` names. The
    parallel-drafting token id and the older runner's parallel-drafting parameters are
    read here.
``target``
    The target model built by the dummy loader on the meta device, under
    ``set_current_vllm_config``.
``tap``
    ``set_eagle3_aux_hidden_state_layers`` on the target (newer runner), or the older
    runner's ``GPUModelRunner._setup_eagle3_aux_hidden_state_outputs``, for the methods
    that tap the target's hidden states (up to 0.33.0 ``eagle3_utils.requires_aux_hidden_states``;
    from 0.34.0 ``SpeculativeConfig.uses_aux_hidden_states``, the speculator config's
    answer, the same semantics, as ``GPUModelRunner.__init__`` reads it). The older runner
    builds the draft before it taps; the newer one taps first. Both orders are kept.
``draft``
    ``speculator.load_model(target_model)`` (newer runner) or ``proposer.load_model``
    (older runner): the draft class built on the meta device, sharing the target's
    embedding and ``lm_head`` where vLLM shares them.
``weights`` (with ``--weights FILE`` only)
    The draft's checkpoint loaded by vLLM's own loader: the safetensors file is linked
    into the draft's folder as ``model.safetensors`` and, once the target is built,
    ``load_config`` becomes ``load_format="safetensors"`` on the CPU, so the speculator's
    ``load_model`` builds the draft with ``DefaultModelLoader.load_model``:
    ``initialize_model``, the model's own ``load_weights`` (its renames, its skipped
    tensors, each parameter's ``weight_loader`` and its shape check), then the loader's
    ``track_weights_loading`` ("Following weights were not initialized from
    checkpoint"), then the speculator's own sharing of the target's embedding and
    ``lm_head``. The ``draft`` stage passes when ``load_weights`` is entered (the draft
    was built); ``weights`` when ``load_model`` returns. The run then reads back the
    draft's parameters the checkpoint did not write (filled with NaN before loading,
    still NaN once the speculator has shared what it shares: the draft runs on whatever
    memory they were given), where its ``lm_head``
    and embedding come from (``"draft"``, ``"target"``) and the shape of its
    draft-to-target map (``draft_id_to_target_id``), and stops: ``combine`` is the
    full-size run's. Whatever the weights do, it also reads back (``running``) the rest of
    the state that decides running right, as the release's own objects hold it: the
    tapped layers and whether the draft named them (``get_eagle3_aux_layers_from_config``
    answered, else the target's ``get_eagle3_default_aux_hidden_state_layers`` guessed),
    the rotary embedding the draft and the target were built with (class, base, scaling),
    the draft's per-layer causal flags (``get_draft_attn_causal``, from
    ``qwen3_dflash.py: _dflash_layer_causal``) and the speculator's ``sample_from_anchor``.
    The folders hold a scaled-down draft and target (``tools/harness/checkpoint.py``), so
    both are built on the CPU (the target by the dummy loader: vLLM compares its embedding
    and ``lm_head`` with the draft's).
``combine``
    The draft's own ``combine_hidden_states`` on a meta tensor of shape
    ``(2, n_taps * target_hidden_size)``, where ``n_taps`` counts the tapped layer ids the
    target's decoder loop captures (ids ``0..num_hidden_layers``: vLLM's
    ``EagleModelMixin._maybe_add_hidden_state`` captures the decoder's input as id 0 and
    each layer's output as its index + 1, after the target sorts and de-duplicates the
    list). Skipped (``combine`` not run) for methods that tap nothing or drafts that have
    no ``combine_hidden_states``.

Not reached without ``--weights``: weight loading (names, shapes). Never reached: the
attention back-ends' metadata, KV-cache sizing, CUDA graphs, a forward pass.

What this process patches, and why (none of it enters the package):

* ``VLLM_TARGET_DEVICE=cpu`` in the environment before vLLM is imported: with no GPU no
  platform is found and ``DeviceConfig`` fails ("Device string must not be empty").
* Up to 0.33.0, ``vllm.config.vllm.HAS_TRITON = True``: ``VllmConfig.use_v2_model_runner``
  falls back to the older runner when triton is absent (it is, on this machine), and a GPU
  machine has it; with this the harness follows the runner a GPU machine picks.
* From 0.34.0, ``triton`` is a stand-in (``stand_ins/triton_cpu/triton``, put on
  ``PYTHONPATH`` by ``harness.py`` for those releases only): the CPU platform refuses x86
  without Triton (``vllm/platforms/cpu.py``: ``check_and_update_config``, "vLLM on x86
  CPUs requires Triton (triton-cpu)."), and no released Triton gives vLLM a usable backend
  here. With it vLLM's own ``HAS_TRITON`` reads true in every module, as on a GPU machine;
  its kernels are objects that raise when launched, and its ``runtime.autotuner`` classes
  let vLLM's JIT warm-up (``jit_warmup_triton_helper.py``: ``_is_autotuned``) register
  them. A run that launches a kernel fails with "triton stand-in: ..." and is marked an
  artefact.
* ``torch.accelerator.empty_cache`` and ``torch.accelerator.synchronize`` do nothing: the
  CPU torch raises "Cannot access accelerator device when none is available" from them,
  and the model loader calls them.
* ``vllm._custom_ops.cpu_prepack_moe_weight`` (and its binding in
  ``vllm.model_executor.layers.fused_moe.experts.cpu_moe``) is the identity: the CPU
  platform's fused-MoE experts pre-pack their weights through ``torch.ops._C``, and
  ``vllm._C`` does not load against the CPU torch. A GPU machine never takes this path.
  Likewise ``torch.ops._C.convert_weight_packed``, with which 0.34.0's CPU MLA attention
  back-end (``vllm/v1/attention/backends/mla/amx_mla.py``: ``process_weights_after_loading``)
  packs an MLA target's weights: a GPU machine picks another MLA back-end.
* One-process ``torch.distributed`` group, gloo backend, ``file://`` rendezvous in a
  temporary folder (no network), and vLLM's model-parallel groups of size 1 on top of it,
  as vLLM's worker sets them up.
* ``EngineArgs``: ``skip_tokenizer_init=True`` (the folders hold only ``config.json``),
  ``load_format="dummy"``, ``enforce_eager=True``, ``max_model_len=1024``,
  ``max_num_seqs=4``, ``max_num_batched_tokens=1024``; after the config is built,
  ``load_config.device = "meta"`` so no weight is allocated.
* vLLM's model-info cache (``VLLM_CACHE_ROOT``, set by ``harness.py``) lives beside the
  environment: it holds what the registry learns by inspecting vLLM's own model classes
  in a subprocess, keyed on each class file's hash, so the inspection runs once a class.
* ``torchvision`` is a stand-in (``stand_ins/torchvision``, put on ``PYTHONPATH`` by
  ``harness.py`` for every release): its wheels do not load against the CPU torch, and transformers'
  Qwen2-VL image processor, which vLLM's Qwen3-VL and Qwen3.5 files import, imports it at
  module level. Its names are placeholders that raise when called; no stage uses them.
* The older runner's ``parallel_drafting_hidden_state_tensor`` is re-made on the meta
  device after the proposer is built (``_meta_mask_buffer``): its ``load_model`` copies the
  draft's meta ``mask_hidden`` into it.
* The speculator and proposer are built with ``device=cpu`` (their buffers are small) and
  the older runner's proposer with ``runner=None``.

A failure on a path only the CPU platform takes (its MoE experts, its attention
back-ends) is an artefact of this machine, not a reading of the draft: the JSON names the
file of the frame that raised (``where``) so a reader can tell.

Output: one line on stdout, prefixed ``HARNESS-RESULT `` and followed by a JSON object::

    {"vllm_version": "0.33.0", "method": "dflash", "parallel_drafting": false,
     "runner": "newer", "stages_passed": ["config", ...], "failed_stage": null,
     "outcome": "passed", "exception": null, "speculator": "DFlashSpeculator",
     "draft_class": "DFlashQwen3ForCausalLM", "target_class": "Qwen3ForCausalLM",
     "tapped_layers": [2, 10, 18, 26, 34], "combine_width": 20480}

``outcome`` is ``passed`` or ``failed``; ``exception`` is ``{"type", "message", "detail",
"where"}``: the message's first line, its next lines shortened (pydantic's
``ValidationError`` gives the field and reason there), and the innermost frame that raised,
relative to ``site-packages`` (``vllm/...``, or the library vLLM called).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not __package__:  # run as a script, in the engine's environment: see harness_common/serve.py
    sys.path.append(str(Path(__file__).resolve().parents[4]))

from tools.harness.serve import exception_record, report, rope_reading, serve
from tools.harness.serve import passed as serve_passed

STAGES = ("config", "speculator", "target", "tap", "draft", "weights", "combine")
"""The stages in the order the newer runner takes them (the older one builds the draft
before it taps the target). ``weights`` runs only with ``--weights``, and ``combine`` only
without it."""


def _patch_before_import() -> None:
    os.environ["VLLM_TARGET_DEVICE"] = "cpu"
    # Quiet logs; the result is the last line of stdout.
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "1")
    import torch

    def _nothing(*args: object, **kwargs: object) -> None:
        return None

    torch.accelerator.empty_cache = _nothing
    torch.accelerator.synchronize = _nothing


ONE_RUNNER_FROM = (0, 34, 0)
"""The first release with one model runner: ``VllmConfig.use_v2_model_runner``, the older
runner and ``eagle3_utils.requires_aux_hidden_states`` are gone (``vllm/config/vllm.py``,
``vllm/v1/worker/gpu_model_runner.py``, deleted)."""


def release_of(version: str) -> tuple[int, ...]:
    """``vllm.__version__`` as numbers (``"0.34.0"`` -> ``(0, 34, 0)``; a local or
    pre-release suffix is dropped)."""
    numbers = []
    for part in version.partition("+")[0].split("."):
        digits = part[: len(part) - len(part.lstrip("0123456789"))]
        if not digits:
            break
        numbers.append(int(digits))
        if digits != part:  # "1rc1": the pre-release ends the numbers
            break
    return tuple(numbers)


def _one_runner() -> bool:
    import vllm

    return release_of(vllm.__version__) >= ONE_RUNNER_FROM


def _patch_after_import() -> None:
    import vllm._custom_ops as ops

    if not _one_runner():
        import vllm.config.vllm as config_vllm

        config_vllm.HAS_TRITON = True  # type: ignore[attr-defined]

    def _identity(weight: Any, isa: str) -> Any:
        return weight

    ops.cpu_prepack_moe_weight = _identity
    # 0.34.0's CPU MLA attention back-end (amx_mla.py) packs its weights the same way.
    import torch

    torch.ops._C.convert_weight_packed = lambda weight: weight
    try:
        from vllm.model_executor.layers.fused_moe.experts import cpu_moe
    except Exception:
        return
    cpu_moe.cpu_prepack_moe_weight = _identity  # type: ignore[attr-defined]


def _init_distributed(folder: str) -> None:
    from vllm.distributed.parallel_state import (
        ensure_model_parallel_initialized,
        init_distributed_environment,
    )

    init_distributed_environment(
        world_size=1,
        rank=0,
        distributed_init_method=f"file://{folder}/rendezvous",
        local_rank=0,
        backend="gloo",
    )
    ensure_model_parallel_initialized(1, 1)


def _older_proposer(vllm_config: Any, device: Any) -> Any:
    """The proposer ``GPUModelRunner.__init__`` builds, in its order of tests."""
    spec = vllm_config.speculative_config
    if spec.uses_draft_model():
        from vllm.v1.spec_decode.draft_model import DraftModelProposer

        return DraftModelProposer(vllm_config=vllm_config, device=device, runner=None)
    if spec.use_gemma4_mtp():
        from vllm.v1.spec_decode.gemma4 import Gemma4Proposer

        return Gemma4Proposer(vllm_config, device, None)
    if spec.use_dflash():
        from vllm.v1.spec_decode.dflash import DFlashProposer

        return DFlashProposer(vllm_config, device, None)
    if spec.use_eagle():
        from vllm.v1.spec_decode.eagle import EagleProposer

        return EagleProposer(vllm_config, device, None)
    raise ValueError(f"the harness does not build the older runner's {spec.method!r} proposer")


def _older_aux_layers(vllm_config: Any) -> tuple[int, ...] | None:
    from types import SimpleNamespace

    from vllm.v1.worker.gpu_model_runner import GPUModelRunner

    runner = SimpleNamespace(speculative_config=vllm_config.speculative_config)
    layers: tuple[int, ...] | None = GPUModelRunner._get_eagle3_aux_layers_from_config(runner)  # type: ignore[arg-type]
    return layers


def _tap_older(model: Any, vllm_config: Any) -> None:
    """``GPUModelRunner._setup_eagle3_aux_hidden_state_outputs``, on a runner-less model."""
    from vllm.model_executor.models.interfaces import supports_eagle3

    if not supports_eagle3(model):
        raise RuntimeError(
            "Model does not support EAGLE3 interface but aux_hidden_state_outputs was requested"
        )
    layers = _older_aux_layers(vllm_config) or model.get_eagle3_default_aux_hidden_state_layers()
    model.set_aux_hidden_state_layers(layers)


def _meta_mask_buffer(speculator: Any) -> None:
    """Re-make the older runner's masked-slot hidden state on the meta device.

    ``SpecDecodeBaseProposer.load_model`` copies the draft's ``mask_hidden`` (through
    ``combine_hidden_states`` for EAGLE-3) into ``parallel_drafting_hidden_state_tensor``,
    which ``__init__`` allocated on the runner's device. Here the draft is on the meta
    device, and a meta tensor cannot be copied into a CPU one; meta into meta still checks
    the shapes, which is what the copy can fail on.
    """
    import torch

    tensor = getattr(speculator, "parallel_drafting_hidden_state_tensor", None)
    if isinstance(tensor, torch.Tensor) and tensor.device.type != "meta":
        speculator.parallel_drafting_hidden_state_tensor = torch.empty_like(tensor, device="meta")


def _taps(spec: Any, one_runner: bool) -> bool:
    """Whether the newer runner taps the target's hidden states for ``spec``: from 0.34.0
    ``SpeculativeConfig.uses_aux_hidden_states`` (read by ``GPUModelRunner.__init__``),
    before it ``eagle3_utils.requires_aux_hidden_states``."""
    if one_runner:
        return bool(spec.uses_aux_hidden_states)
    from vllm.v1.worker.gpu.spec_decode.eagle.eagle3_utils import requires_aux_hidden_states

    return bool(requires_aux_hidden_states(spec))


def _tapped_layers(model: Any) -> tuple[int, ...] | None:
    parent = model
    if hasattr(model, "get_language_model"):
        parent = model.get_language_model()
    elif hasattr(model, "language_model"):
        parent = model.language_model
    holder = getattr(parent, "model", parent)
    layers = getattr(holder, "aux_hidden_state_layers", None)
    return None if layers is None else tuple(int(i) for i in layers)


_UNWRITTEN = -7
"""What an integer parameter holds before the checkpoint is loaded (floats hold NaN)."""


def _watch_weights(entered: Any) -> None:
    """Call ``entered(model)`` when vLLM's ``DefaultModelLoader.load_weights`` starts (the draft
    is built, its weights are next) and, before it loads, fill every parameter of the
    draft with NaN (an integer one with ``_UNWRITTEN``), so :func:`_unwritten` can tell
    afterwards which ones the checkpoint did not write. The loader itself is unchanged."""
    import torch
    from vllm.model_executor.model_loader.default_loader import DefaultModelLoader

    original = DefaultModelLoader.load_weights

    def load_weights(self: Any, model: Any, model_config: Any) -> None:
        entered(model)
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.fill_(float("nan") if parameter.is_floating_point() else _UNWRITTEN)
        original(self, model, model_config)

    DefaultModelLoader.load_weights = load_weights  # type: ignore[method-assign]


def _unwritten(draft: Any) -> list[str]:
    """The loaded draft's parameters, as the speculator left them (the target's embedding
    and ``lm_head`` shared where vLLM shares them), that still hold what
    :func:`_watch_weights` filled them with in some element: the checkpoint did not write
    them, and the draft runs on the memory they were allocated with."""
    import torch

    names = []
    with torch.no_grad():
        for name, parameter in draft.named_parameters():
            left = parameter.isnan() if parameter.is_floating_point() else parameter == _UNWRITTEN
            if bool(left.any()):
                names.append(name)
    return names


def _embedding(model: Any) -> Any:
    holder = getattr(model, "model", model)
    return getattr(holder, "embed_tokens", None)


def _source(module: Any, target_module: Any) -> str | None:
    """``"target"`` when the draft holds the target's own module, ``"draft"`` when it holds
    one of its own, ``None`` when it holds none."""
    if module is None:
        return None
    return "target" if module is target_module else "draft"


def _weights_state(draft: Any, target: Any, unwritten: list[str]) -> dict[str, Any]:
    """What the loaded draft holds that decides running right: where its ``lm_head`` and
    embedding come from, its draft-to-target map's shape (``None``: it has none), and its
    parameters the checkpoint did not write (``unwritten``: see :func:`_unwritten`)."""
    mapping = getattr(draft, "draft_id_to_target_id", None)
    return {
        "not_from_checkpoint": sorted(unwritten),
        "lm_head": _source(getattr(draft, "lm_head", None), getattr(target, "lm_head", None)),
        "embedding": _source(_embedding(draft), _embedding(target)),
        "d2t_shape": None if mapping is None else list(mapping.shape),
    }


def _causal(draft: Any) -> list[bool] | None:
    """The draft's attention causality per layer, as its model reports it
    (``get_draft_attn_causal``: DFlash and DSpark drafters); ``None`` for the others."""
    method = getattr(draft, "get_draft_attn_causal", None)
    return None if method is None else [bool(flag) for flag in method()]


def _layers_named(vllm_config: Any, newer: bool) -> bool:
    """Whether the draft's config named the tapped layers, as the runner that taps reads it
    (``eagle3_utils.get_eagle3_aux_layers_from_config``; the older runner's
    ``GPUModelRunner._get_eagle3_aux_layers_from_config``): a falsy answer makes the
    target guess them (``get_eagle3_default_aux_hidden_state_layers``)."""
    if newer:
        from vllm.v1.worker.gpu.spec_decode.eagle.eagle3_utils import (
            get_eagle3_aux_layers_from_config,
        )

        return bool(get_eagle3_aux_layers_from_config(vllm_config.speculative_config))
    return bool(_older_aux_layers(vllm_config))


def _prepare() -> None:
    """Patch and import what every run needs (idempotent)."""
    _patch_before_import()
    import vllm.engine.arg_utils  # noqa: F401 - the import is the point

    _patch_after_import()


def run(args: argparse.Namespace) -> dict[str, Any]:  # noqa: PLR0912, PLR0915 - the stages, in order
    started = time.monotonic()
    _prepare()
    import torch
    import vllm
    from vllm.config import set_current_vllm_config
    from vllm.engine.arg_utils import EngineArgs

    imported = time.monotonic() - started

    speculative: dict[str, Any] = {
        "method": args.method,
        "num_speculative_tokens": args.num_speculative_tokens,
    }
    if args.draft is not None:
        speculative["model"] = args.draft
    if args.parallel_drafting:
        speculative["parallel_drafting"] = True

    result: dict[str, Any] = {
        "vllm_version": vllm.__version__,
        "method": args.method,
        "parallel_drafting": args.parallel_drafting,
        "runner": None,
        "stages_passed": [],
        "failed_stage": None,
        "outcome": "passed",
        "exception": None,
        "speculator": None,
        "draft_class": None,
        "target_class": None,
        "tapped_layers": None,
        "combine_width": None,
        "seconds": {"imports": round(imported, 1)},
    }
    weights = getattr(args, "weights", None)
    running: dict[str, Any] = {
        "tapped_layers": None,
        "layers_named": None,
        "draft_rope": None,
        "target_rope": None,
        "causal": None,
        "sample_from_anchor": None,
    }
    if weights is not None:
        result["weights"] = None
        result["running"] = running
        os.symlink(weights, Path(args.draft) / "model.safetensors")
    stage = "config"
    clock = [time.monotonic()]

    def passed(name: str) -> None:
        result["stages_passed"].append(name)
        serve_passed(name)  # how far a run went, should it never report
        now = time.monotonic()
        result["seconds"][name] = round(now - clock[0], 1)
        clock[0] = now

    try:
        engine_args = EngineArgs(
            model=args.target,
            speculative_config=speculative,
            skip_tokenizer_init=True,
            max_model_len=1024,
            max_num_seqs=4,
            max_num_batched_tokens=1024,
            load_format="dummy",
            enforce_eager=True,
        )
        vllm_config = engine_args.create_engine_config()
        passed("config")

        one_runner = _one_runner()
        newer = one_runner or bool(vllm_config.use_v2_model_runner)
        result["runner"] = "newer" if newer else "older"
        # The target on the meta device, unless the draft loads weights: then its (scaled)
        # target is built on the CPU, whose embedding and lm_head vLLM compares with the
        # draft's to decide sharing (eagle/utils.py: _should_share, torch.equal).
        vllm_config.load_config.device = "meta" if weights is None else "cpu"
        device = torch.device("cpu")
        spec = vllm_config.speculative_config
        with tempfile.TemporaryDirectory() as folder, set_current_vllm_config(vllm_config):
            _init_distributed(folder)

            stage = "speculator"
            if newer:
                from vllm.v1.worker.gpu.spec_decode import init_speculator
                from vllm.v1.worker.gpu.spec_decode.eagle.eagle3_utils import (
                    set_eagle3_aux_hidden_state_layers,
                )

                speculator = init_speculator(vllm_config, device, None)  # type: ignore[arg-type]
                taps = _taps(spec, one_runner)
            else:
                speculator = _older_proposer(vllm_config, device)
                taps = spec.use_dflash() or (
                    spec.method == "eagle3" and bool(speculator.eagle3_use_aux_hidden_state)
                )
            result["speculator"] = type(speculator).__name__
            anchor = getattr(speculator, "sample_from_anchor", None)
            running["sample_from_anchor"] = None if anchor is None else bool(anchor)
            _meta_mask_buffer(speculator)
            passed("speculator")

            stage = "target"
            from vllm.model_executor.model_loader import get_model_loader

            loader = get_model_loader(vllm_config.load_config)
            target = loader.load_model(
                vllm_config=vllm_config, model_config=vllm_config.model_config
            )
            result["target_class"] = type(target).__name__
            running["target_rope"] = rope_reading(target)
            passed("target")

            if weights is not None:
                # The draft from its checkpoint, on the CPU, by vLLM's own loader.
                vllm_config.load_config.load_format = "safetensors"

                def entered(model: Any) -> None:
                    nonlocal stage
                    running["draft_rope"] = rope_reading(model)
                    running["causal"] = _causal(model)
                    passed("draft")
                    stage = "weights"

                _watch_weights(entered)

            if newer:
                stage = "tap"
                if taps:
                    set_eagle3_aux_hidden_state_layers(target, spec, False)
                    result["tapped_layers"] = list(_tapped_layers(target) or ())
                    running["tapped_layers"] = result["tapped_layers"]
                    running["layers_named"] = _layers_named(vllm_config, newer)
                passed("tap")
                stage = "draft"
                if hasattr(speculator, "load_model"):
                    speculator.load_model(target)
                passed(stage)
            else:
                stage = "draft"
                speculator.load_model(target)
                passed(stage)
                stage = "tap"
                if taps:
                    _tap_older(target, vllm_config)
                    result["tapped_layers"] = list(_tapped_layers(target) or ())
                    running["tapped_layers"] = result["tapped_layers"]
                    running["layers_named"] = _layers_named(vllm_config, newer)
                passed("tap")

            draft = getattr(speculator, "model", None)
            result["draft_class"] = None if draft is None else type(draft).__name__
            if weights is not None:
                result["weights"] = _weights_state(draft, target, _unwritten(draft))
                return result

            stage = "combine"
            combine = getattr(draft, "combine_hidden_states", None)
            if taps and combine is not None:
                text = vllm_config.model_config.hf_text_config
                hidden = int(text.hidden_size)
                layers = int(text.num_hidden_layers)
                count = sum(1 for i in result["tapped_layers"] or () if 0 <= i <= layers)
                width = count * hidden
                result["combine_width"] = width
                features = torch.empty(
                    (2, width), dtype=vllm_config.model_config.dtype, device="meta"
                )
                combine(features)
                passed("combine")
    except Exception as error:
        result["outcome"] = "failed"
        result["failed_stage"] = stage
        result["exception"] = exception_record(error)
    return result


def _unreported(request: dict[str, Any], outcome: str, message: str) -> dict[str, Any]:
    return {
        "method": request["method"],
        "parallel_drafting": bool(request.get("parallel_drafting")),
        "outcome": outcome,
        "stages_passed": [],
        "failed_stage": None,
        "exception": {"type": outcome, "message": message},
    }


def _run_request(request: dict[str, Any]) -> dict[str, Any]:
    return run(
        argparse.Namespace(
            draft=request.get("draft"),
            target=request["target"],
            method=request["method"],
            parallel_drafting=bool(request.get("parallel_drafting")),
            num_speculative_tokens=int(request.get("num_speculative_tokens", 4)),
            weights=request.get("weights"),
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="run requests from stdin")
    parser.add_argument("--draft", help="folder holding the draft's config.json")
    parser.add_argument("--target", help="folder holding the target's config.json")
    parser.add_argument("--method", help="speculative_config.method")
    parser.add_argument("--parallel-drafting", action="store_true")
    parser.add_argument("--num-speculative-tokens", type=int, default=4)
    parser.add_argument("--weights", help="a safetensors file: load it into the draft")
    args = parser.parse_args(argv)
    if args.serve:
        # vLLM imported once, before any run sets global state; a forked child per request.
        _prepare()
        return serve(_run_request, _unreported)
    if args.target is None or args.method is None:
        parser.error("--target and --method are required (or --serve)")
    report(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
