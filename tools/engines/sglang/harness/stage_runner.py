"""Run the released SGLang's own load path for one (draft, target, algorithm); print one JSON
line.

This script runs *inside* the SGLang harness's virtual environment (SGLang 0.5.23 installed
without its dependencies beside the CPU torch 2.13.0; see ``environment.py``), one fresh
process per run, because SGLang's process-wide state (the published server arguments, the
parallel state, the model-parallel groups) does not reset. It imports nothing of
``drafting_config``.

    python stage_runner.py --draft DRAFT_DIR --target TARGET_DIR --algorithm DFLASH \
        [--device cuda|cpu]
    python stage_runner.py --serve   # requests on stdin, one JSON object a line

``--serve`` imports SGLang (and its registry, which imports every model file) once and
forks a child per request (``tools/harness/serve.py``, shared with the vLLM harness,
as are the exception's record and the report's line): each run still starts from a process
in which SGLang has never been configured, without one to three minutes of imports each time.

It walks the stages in the order SGLang's scheduler takes them for the target's worker and
the draft's, and stops at the first that raises (``srt/`` stands for ``sglang/srt/``):

``config``
    ``ServerArgs(model_path=TARGET, speculative_algorithm=ALGORITHM,
    speculative_draft_model_path=DRAFT, ...)`` and ``ModelConfig.from_server_args`` for the
    target and, with ``is_draft_model=True``, the draft (``srt/configs/model_config.py``):
    SGLang's config loader parses both ``config.json`` files and its draft-model rewrites
    apply.
``registry``
    ``get_model_architecture`` (``srt/model_loader/utils.py``) for the draft's config and
    the target's: the classes ``srt/models/registry.py`` resolves (or the ``auto_map``
    remote code it falls back to). The registry imports every model file and skips, with a
    warning, one that fails to import; the report lists those (``registry_skipped``) and,
    of the draft's and the target's ``architectures``, those such a file defines
    (``skipped_classes``): a class "not registered" for that reason is an artefact of this
    machine. ``failed_model`` says whose config (``target`` or ``draft``, or the ``server
    arguments``) a ``config`` or ``registry`` failure is about.
``pipeline``
    ``set_global_server_args_for_scheduler``, which runs ``ServerArgs.resolve_once``: the
    resolution pipeline (``srt/arg_groups/``), with the speculative hook
    (``speculative_hook.py``: ``_handle_dflash``, ``_handle_dspark``,
    ``_handle_eagle_family``) that derives ``speculative_num_steps``,
    ``speculative_eagle_topk`` and ``speculative_num_draft_tokens`` from the draft; then
    ``resolve_spec_aux_hidden_state_config``
    (``srt/model_executor/model_runner_components/spec_aux_hidden_state.py``), as the target's
    ``ModelRunner.init_spec_aux_hidden_state`` calls it: ``parse_dflash_draft_config``,
    ``parse_dspark_draft_config`` and the layers the target will capture.
``target``
    The target's class built on the meta device, as ``_initialize_model``
    (``srt/model_loader/loader.py``) builds it (``config`` and ``quant_config=None``), under
    the config's dtype.
``capture``
    ``configure_aux_hidden_state_capture``
    (``srt/model_executor/model_runner_components/attention_backend_setup.py``) on the
    target, with the pipeline's layers: ``set_eagle3_layers_to_capture``,
    ``set_dflash_layers_to_capture`` or ``set_dspark_layers_to_capture``.
``draft``
    The draft's class built on the meta device by ``_initialize_model``, as the draft
    worker's ``ModelRunner`` builds it.

``weights`` (with ``--weights FILE`` only)
    The draft loaded from a checkpoint by SGLang's own loader: the safetensors file is
    linked into the draft's folder as ``model.safetensors``, and
    ``DefaultModelLoader(LoadConfig(load_format="safetensors")).load_model`` builds the
    draft on the CPU (``_initialize_model``) and runs ``load_weights_and_postprocess``:
    the class's own ``load_weights`` (its renames, the names it skips, each parameter's
    ``weight_loader``), then ``process_weights_after_loading``. Before loading, every
    parameter is filled with NaN (an integer one with ``_UNWRITTEN``); the run reads back
    those that still hold it (``not_from_checkpoint``: the checkpoint did not write them),
    ``load_lm_head_from_target`` (whether the draft worker will replace its ``lm_head``
    with the target's) and the shape of ``hot_token_id`` (the draft-to-target map
    ``load_weights`` makes from ``d2t``). The draft worker's own sharing of the target's
    embedding and head is not run. The folders hold a scaled-down draft and target
    (``tools/harness/checkpoint.py``), so the draft fits this machine. Whatever the
    weights do, the run also reads back (``running``), from the models the ``target`` and
    ``draft`` stages built and the pipeline's answer, the rest of the state that decides
    running right: the layers the target captures and whether the draft named them
    (``eagle_aux_hidden_state_layer_ids`` for EAGLE3, ``parse_dflash_draft_config``'s
    ``target_layer_ids`` for DFLASH and DSPARK; else SGLang guesses them), the rotary
    embedding each model was built with (class, base, scaling), the draft's per-layer
    causality (``self_attn.attn_type``: ``DECODER`` is causal, ``srt/models/dflash.py``:
    ``_get_dflash_layer_attention_params``) and its ``sample_from_anchor``
    (``srt/models/dspark.py``, from ``get_dspark_sample_from_anchor``).

**Where it stops.** Not reached: the draft worker's own set-up
(``DFlashWorkerV2._resolve_mask_token_id`` and the served tokenizer, the embedding and
``lm_head`` the draft shares with the target), weight loading, the attention back-ends, the
KV-cache pools, CUDA graphs, a forward pass. Reached but not runnable here (artefacts,
recorded as such): the model files SGLang's registry cannot import under the CPU platform,
which look up ``sgl_kernel``'s CPU operators in ``torch.ops`` at import (``qwen3_5``,
``qwen3_5_text``, ``muse_glimmer``, ``minicpmv``, ``qwen4_exp``, ...: the Qwen3.5/3.6 and
MuseGlimmer targets cannot be resolved), or need ``cutlass`` (``inkling``), ``torchaudio``
or the CUDA ``causal_conv1d`` kernels; and the CUDA calls some model files make while they
are built or configured (``torch.cuda.Stream`` in LongCat-Flash's, a lazy CUDA
initialisation in the GLM-5 DSpark pipeline), which the CPU torch cannot make.

**The speculative parameters** are not passed: ``speculative_num_steps``,
``speculative_eagle_topk`` and ``speculative_num_draft_tokens`` are left unset, so SGLang
derives them from the draft as it does for a user who gives none: DFLASH's block size from
``parse_dflash_draft_config(...).resolve_block_size``, DSPARK's ``gamma + 1`` from
``read_draft_checkpoint_config(...).resolve_gamma``, EAGLE3's consistent triple from
``_auto_choose_speculative_params``. The report records what SGLang chose
(``speculative``).

What this process sets or replaces to run on a CPU-only machine, and why (none of it
enters the package):

* ``--device`` (``ServerArgs.device``): ``cuda`` by default, what a user serving on a GPU
  passes; the CPU torch never touches a CUDA device, because every model is built on the
  meta device. ``--device cpu`` takes SGLang's CPU platform, whose hooks refuse DFLASH and
  DSPARK outright ("DFLASH speculative decoding is not supported by CpuSRTPlatform on
  device 'cpu'", ``_handle_dflash``; "DSpark speculative decoding only supports CUDA, NPU or
  XPU device", ``_handle_dspark``): a refusal only the CPU platform makes, an artefact of
  this machine and no reading of the draft (``readings.artefact`` says so).
* ``ServerArgs``: ``skip_tokenizer_init=True`` (the folders hold only ``config.json``),
  ``load_format="dummy"``, ``disable_cuda_graph=True``, ``context_length=1024``.
* ``torchvision`` and ``sgl_kernel`` are stand-ins (``stand_ins/``, put on ``PYTHONPATH``
  by ``harness.py``): torchvision's wheels do not load against the CPU torch, and
  ``srt/configs/model_config.py`` reaches it at import (through ``nano_nemotron_vl`` and
  ``multimodal/internvl_utils``); ``sgl_kernel`` is SGLang's CUDA kernel package, which
  class resolution reaches (``srt/mem_cache/memory_pool.py`` imports
  ``sglang/kernels/ops/kvcache/cache_move.py``, which imports it). Their names are
  placeholders that raise when called; no stage calls them, and a run that does fails
  loudly ("... stand-in: ... was called"), an artefact.
* A one-process ``torch.distributed`` group, gloo backend, ``file://`` rendezvous in a
  temporary folder (no network), then SGLang's model-parallel groups of size 1
  (``initialize_model_parallel``), as the scheduler sets them up.
* The parallel state (``srt/runtime_context.py``): every rank 0 and every size 1 written
  with ``get_parallel().override_permanently``, as a single-GPU scheduler process has
  them; without it ``VocabParallelEmbedding`` raises "parallel name 'tp_rank' has not been
  written".
* ``SGLANG_USE_CPU_ENGINE=1`` (set by ``harness.py``): with no GPU, SGLang's platform
  detection finds no platform, and the model files' module-level choices (``_is_cuda``,
  ``_is_cpu``, ...) are all false, which sends e.g. the rotary embedding to
  ``vllm._custom_ops``; the CPU platform makes them take native torch instead. Only those
  choices come from it: the server arguments say ``device="cuda"``. A failure on a path
  only the CPU platform takes is an artefact (``readings.artefact``).
* ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` (``harness.py``).

Output: one line on stdout, prefixed ``HARNESS-RESULT `` and followed by a JSON object::

    {"sglang_version": "0.5.23", "algorithm": "DFLASH", "device": "cuda",
     "stages_passed": ["config", ...], "failed_stage": null, "outcome": "passed",
     "exception": null, "draft_class": "DFlashDraftModel",
     "target_class": "Qwen3ForCausalLM", "speculative": {"num_steps": 1, "eagle_topk": 1,
     "num_draft_tokens": 16}, "capture_layers": [1, 9, 17, 25, 33],
     "captured": [2, 10, 18, 26, 34]}

``capture_layers`` are the ids the pipeline chose (``dflash_target_layer_ids`` or
``eagle_aux_hidden_state_layer_ids``); ``captured`` what the target's model holds after the
capture call (its ``layers_to_capture``, in the target's own indexing). ``exception`` is
``{"type", "message", "detail", "where"}`` as the vLLM harness reports it.
"""

from __future__ import annotations

import argparse
import logging
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

STAGES = ("config", "registry", "pipeline", "target", "capture", "draft")
"""The stages, in the order the harness runs them."""
WEIGHT_STAGES = (*STAGES, "weights")
"""The stages with ``--weights FILE``: the draft loaded from its checkpoint after."""
ALGORITHMS = ("DFLASH", "DSPARK", "EAGLE3", "STANDALONE")
"""The ``--speculative-algorithm`` values the harness runs."""
DEVICES = ("cuda", "cpu")
"""``ServerArgs.device`` values: ``cuda`` (the default) or SGLang's CPU platform."""


def _init_parallel(folder: str) -> None:
    """A one-process gloo group, every parallel rank 0 and size 1, model-parallel groups of 1."""
    from sglang.srt.distributed.parallel_state import (
        init_distributed_environment,
        initialize_model_parallel,
    )
    from sglang.srt.runtime_context import _parallel_fields, get_parallel

    init_distributed_environment(
        world_size=1,
        rank=0,
        distributed_init_method=f"file://{folder}/rendezvous",
        local_rank=0,
        backend="gloo",
    )
    values = {
        name: 0 if name.endswith("rank") else 1
        for name in _parallel_fields()
        if name.endswith(("rank", "size"))
    }
    get_parallel().override_permanently(**values)
    initialize_model_parallel()


def _captured(model: Any) -> list[int] | None:
    for holder in (model, getattr(model, "model", None), getattr(model, "language_model", None)):
        inner = getattr(holder, "model", holder)
        layers = getattr(inner, "layers_to_capture", None)
        if layers is not None:
            return [int(i) for i in layers]
    return None


def _skipped_definitions(hf_config: Any) -> dict[str, str]:
    """Each of the config's ``architectures`` that a model file the registry skipped defines
    (``class NAME(`` in its source), with that file's import error."""
    import importlib.util
    from pathlib import Path

    names = [str(name) for name in getattr(hf_config, "architectures", None) or ()]
    found: dict[str, str] = {}
    for entry in _SKIPPED_BY_REGISTRY.modules:
        module = entry.split(":", 1)[0]
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            continue
        source = Path(spec.origin).read_text(encoding="utf-8", errors="replace")
        for name in names:
            if f"class {name}(" in source:
                found[name] = entry
    return found


def _build(model_config: Any) -> Any:
    """The model's class built on the meta device, as ``_initialize_model`` builds it."""
    import torch
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.model_loader.loader import _initialize_model
    from sglang.srt.model_loader.utils import set_default_torch_dtype

    with set_default_torch_dtype(model_config.dtype), torch.device("meta"):
        return _initialize_model(model_config, LoadConfig(load_format="dummy"), None)


class _Skipped(logging.Handler):
    """Collects the model files the registry skipped ("Ignore import error when loading")."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.modules: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith(_SKIPPED):
            self.modules.append(message.removeprefix(_SKIPPED)[:200])


_SKIPPED = "Ignore import error when loading "
_SKIPPED_BY_REGISTRY = _Skipped()


_UNWRITTEN = -7
"""What an integer parameter holds before the checkpoint is loaded (floats hold NaN)."""


def _causal(draft: Any) -> list[bool] | None:
    """The draft's attention causality per layer where its attention modules record it
    (``self_attn.attn_type``: DFlash and DSpark drafters); ``None`` where none does."""
    from sglang.srt.layers.radix_attention import AttentionType

    flags = [
        module.attn_type == AttentionType.DECODER
        for name, module in draft.named_modules()
        if name.split(".")[-1] == "self_attn" and hasattr(module, "attn_type")
    ]
    return flags or None


def _layers_named(algorithm: str, aux: Any, draft_config: Any) -> bool | None:
    """Whether the draft named the layers the target captures, as SGLang reads them
    (EAGLE3: the pipeline's ``eagle_aux_hidden_state_layer_ids``; DFLASH and DSPARK:
    ``parse_dflash_draft_config(...).target_layer_ids``, which
    ``resolve_target_layer_ids`` replaces with ``build_target_layer_ids`` when unset)."""
    if algorithm == "EAGLE3":
        return aux.eagle_aux_hidden_state_layer_ids is not None
    if algorithm in ("DFLASH", "DSPARK"):
        from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config

        parsed = parse_dflash_draft_config(draft_hf_config=draft_config.hf_config)
        return parsed.target_layer_ids is not None
    return None


def _load_weights(draft_config: Any) -> dict[str, Any]:
    """The draft built on the CPU and loaded from its folder's checkpoint by SGLang's own
    ``DefaultModelLoader``; what it holds after (see ``weights`` in the docstring)."""
    import torch
    from sglang.srt.configs.device_config import DeviceConfig
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.model_loader.loader import DefaultModelLoader

    original = DefaultModelLoader.load_weights_and_postprocess

    def fill_then_load(model: Any, weights: Any, target_device: Any) -> None:
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.fill_(float("nan") if parameter.is_floating_point() else _UNWRITTEN)
        original(model, weights, target_device)

    DefaultModelLoader.load_weights_and_postprocess = staticmethod(fill_then_load)  # type: ignore[method-assign]
    loader = DefaultModelLoader(LoadConfig(load_format="safetensors"))
    model = loader.load_model(model_config=draft_config, device_config=DeviceConfig("cpu"))
    unwritten = []
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            left = parameter.isnan() if parameter.is_floating_point() else parameter == _UNWRITTEN
            if bool(left.any()):
                unwritten.append(name)
    hot = getattr(model, "hot_token_id", None)
    return {
        "not_from_checkpoint": sorted(unwritten),
        "load_lm_head_from_target": getattr(model, "load_lm_head_from_target", None),
        "hot_token_id_shape": None if hot is None else list(hot.shape),
    }


def _prepare() -> None:
    """Import what every run needs, the registry's model files included (idempotent)."""
    registry_log = logging.getLogger("sglang.srt.models.registry")
    if _SKIPPED_BY_REGISTRY not in registry_log.handlers:
        registry_log.addHandler(_SKIPPED_BY_REGISTRY)
        registry_log.setLevel(logging.WARNING)
    import sglang.srt.configs.model_config
    import sglang.srt.model_loader.loader
    import sglang.srt.models.registry
    import sglang.srt.server_args  # noqa: F401 - the imports are the point


def run(args: argparse.Namespace) -> dict[str, Any]:  # noqa: PLR0915 - the stages, in order
    started = time.monotonic()
    _prepare()
    import sglang
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.server_args import ServerArgs

    result: dict[str, Any] = {
        "sglang_version": sglang.__version__,
        "algorithm": args.algorithm,
        "device": args.device,
        "stages_passed": [],
        "failed_stage": None,
        "outcome": "passed",
        "exception": None,
        "draft_class": None,
        "target_class": None,
        "speculative": None,
        "capture_layers": None,
        "captured": None,
        "registry_skipped": list(_SKIPPED_BY_REGISTRY.modules),
        "skipped_classes": {},
        "failed_model": None,
        "seconds": {"imports": round(time.monotonic() - started, 1)},
    }
    clock = [time.monotonic()]
    weights = getattr(args, "weights", None)
    running: dict[str, Any] = {
        "captured": None,
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

    def passed(name: str) -> None:
        result["stages_passed"].append(name)
        serve_passed(name)  # how far a run went, should it never report
        now = time.monotonic()
        result["seconds"][name] = round(now - clock[0], 1)
        clock[0] = now

    stage = "config"
    model = "server arguments"
    try:
        server_args = ServerArgs(
            model_path=args.target,
            speculative_algorithm=args.algorithm,
            speculative_draft_model_path=args.draft,
            device=args.device,
            skip_tokenizer_init=True,
            load_format="dummy",
            disable_cuda_graph=True,
            context_length=1024,
        )
        model = "target"
        target_config = ModelConfig.from_server_args(server_args)
        model = "draft"
        draft_config = ModelConfig.from_server_args(
            server_args, model_path=args.draft, is_draft_model=True
        )
        passed("config")

        stage = "registry"
        from sglang.srt.model_loader.utils import get_model_architecture

        for model, config in (("target", target_config), ("draft", draft_config)):
            result["skipped_classes"].update(_skipped_definitions(config.hf_config))
            result[f"{model}_class"] = get_model_architecture(config)[0].__name__
        passed("registry")
        model = None

        stage = "pipeline"
        from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import (
            resolve_spec_aux_hidden_state_config,
        )
        from sglang.srt.runtime_context import get_spec
        from sglang.srt.server_args import set_global_server_args_for_scheduler
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        set_global_server_args_for_scheduler(server_args)
        spec = get_spec()
        result["speculative"] = {
            "num_steps": spec.speculative_num_steps,
            "eagle_topk": spec.speculative_eagle_topk,
            "num_draft_tokens": spec.speculative_num_draft_tokens,
        }
        aux = resolve_spec_aux_hidden_state_config(
            server_args=server_args,
            model_config=target_config,
            spec_algorithm=SpeculativeAlgorithm.from_string(spec.speculative_algorithm),
            is_draft_worker=False,
        )
        layers = (
            aux.dflash_target_layer_ids
            if aux.dflash_use_aux_hidden_state
            else aux.eagle_aux_hidden_state_layer_ids
        )
        result["capture_layers"] = None if layers is None else [int(i) for i in layers]
        passed("pipeline")

        with tempfile.TemporaryDirectory() as folder:
            _init_parallel(folder)

            stage = "target"
            target = _build(target_config)
            running["target_rope"] = rope_reading(target)
            passed("target")

            stage = "capture"
            from sglang.srt.model_executor.model_runner_components.attention_backend_setup import (
                configure_aux_hidden_state_capture,
            )

            configure_aux_hidden_state_capture(
                model=target,
                eagle_use_aux_hidden_state=aux.eagle_use_aux_hidden_state,
                eagle_aux_hidden_state_layer_ids=aux.eagle_aux_hidden_state_layer_ids,
                dflash_use_aux_hidden_state=aux.dflash_use_aux_hidden_state,
                dflash_target_layer_ids=aux.dflash_target_layer_ids,
                is_dspark=aux.is_dspark,
            )
            result["captured"] = _captured(target)
            if aux.eagle_use_aux_hidden_state or aux.dflash_use_aux_hidden_state:
                running["captured"] = result["captured"]
                running["layers_named"] = _layers_named(args.algorithm, aux, draft_config)
            passed("capture")

            stage = "draft"
            draft = _build(draft_config)
            running["draft_rope"] = rope_reading(draft)
            running["causal"] = _causal(draft)
            anchor = getattr(draft, "sample_from_anchor", None)
            running["sample_from_anchor"] = None if anchor is None else bool(anchor)
            passed("draft")

            if weights is not None:
                stage = "weights"
                result["weights"] = _load_weights(draft_config)
                passed("weights")
    except Exception as error:
        result["outcome"] = "failed"
        result["failed_stage"] = stage
        result["failed_model"] = model if stage in ("config", "registry") else None
        result["exception"] = exception_record(error)
    return result


def _unreported(request: dict[str, Any], outcome: str, message: str) -> dict[str, Any]:
    return {
        "algorithm": request.get("algorithm"),
        "device": request.get("device", "cuda"),
        "outcome": outcome,
        "stages_passed": [],
        "failed_stage": None,
        "exception": {"type": outcome, "message": message, "where": ""},
    }


def _run_request(request: dict[str, Any]) -> dict[str, Any]:
    return run(
        argparse.Namespace(
            draft=request["draft"],
            target=request["target"],
            algorithm=request["algorithm"],
            device=request.get("device", "cuda"),
            weights=request.get("weights"),
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="run requests from stdin")
    parser.add_argument("--draft", help="folder holding the draft's config.json")
    parser.add_argument("--target", help="folder holding the target's config.json")
    parser.add_argument("--algorithm", choices=ALGORITHMS)
    parser.add_argument("--device", default="cuda", choices=DEVICES)
    parser.add_argument("--weights", help="a safetensors file: load it into the draft")
    args = parser.parse_args(argv)
    os.environ.setdefault("SGLANG_LOGGING_LEVEL", "error")
    if args.serve:
        # SGLang imported once, before any run sets process-wide state; a child per request.
        _prepare()
        return serve(_run_request, _unreported)
    if args.draft is None or args.target is None or args.algorithm is None:
        parser.error("--draft, --target and --algorithm are required (or --serve)")
    report(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
