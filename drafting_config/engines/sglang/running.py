"""What SGLang 0.5.23 decides for a draft that starts, where nothing in the files records it:
the target layers it guesses, the RoPE the draft runs with beside the target's, and the
training choices its drafters assume (DSpark's anchor layout, DFlash's causality).

The rules read the parses and layers :mod:`.config` and :mod:`.layers` already computed
(:func:`~.layers.sglang_layers`, :func:`~.layers.eagle_layer_ids`) and judge nothing again;
where SGLang refuses the draft, the rules that report that speak and these say nothing.
"""

from __future__ import annotations

from typing import Final

from drafting_config.draft.rope import read_rope, rope_difference, target_rope
from drafting_config.engines.sglang.config import (
    SglangDraft,
    _unsupported,
    sglang_algorithm,
    sglang_draft,
)
from drafting_config.engines.sglang.layers import (
    EAGLE_LAYER_IDS_FIELD,
    _dspark_list,
    eagle_layer_ids,
    sglang_layers,
    target_depth,
)
from drafting_config.engines.sglang.names import Algorithm, SglangRefuses
from drafting_config.rules.assumed import ANCHOR_NOTE, CAUSALITY_NOTE
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigWarning,
    TargetLayersWarning,
    bounded_repr,
    describe_value,
)
from drafting_config.values.fields import MISSING, FieldGetter, read_path
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int

_EAGLE3_DEFAULTS: Final = (
    "srt/models/qwen3.py: Qwen3ForCausalLM.set_eagle3_layers_to_capture takes [2, L // 2, "
    "L - 3] when eagle_config names no layers "
    "(srt/model_executor/model_runner_components/spec_aux_hidden_state.py: "
    "_resolve_eagle_aux_hidden_state); vllm-project/vllm#50170"
)
_DFLASH_DERIVED: Final = (
    "srt/speculative/dflash_utils.py: DFlashDraftConfig.resolve_target_layer_ids derives the "
    "layers with build_target_layer_ids when none are named"
)


def check_sglang_guessed_layers(subject: Subject, found: Findings) -> None:
    """The draft names no tapped layers, so SGLang taps layers it guesses from the target's
    depth: an EAGLE-3 draft without ``eagle_config.eagle_aux_hidden_state_layer_ids`` taps
    ``[2, L // 2, L - 3]`` (the target class's ``set_eagle3_layers_to_capture``); a DFlash
    draft without ``dflash_config.target_layer_ids`` (or ``target_layer_ids``) taps
    ``build_target_layer_ids(L, num_hidden_layers)``, spread evenly from 1 to ``L - 3``
    (``DFlashDraftConfig.resolve_target_layer_ids``, ``srt/speculative/dflash_utils.py``).

    A note, as most published drafts naming no layers were trained on these guesses; a
    warning where ``num_aux_hidden_states``, which sizes an EAGLE-3 head's ``fc``
    (``srt/models/llama_eagle3.py``), counts other layers than the guess.  A top-level
    ``eagle_aux_hidden_state_layer_ids`` is reported by ``eagle-layer-ids-misplaced``.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    source = _guess_source(subject, algorithm)
    if source is None:
        return
    field, evidence, depth = source
    get = subject.get
    try:
        guessed = sglang_layers(subject).ids
    except SglangRefuses:
        return  # reported by the layer rules
    if guessed is None:
        return
    shown = bounded_repr(list(guessed))
    declared = exact_int(get("num_aux_hidden_states", None))
    fix = f"set `{field}` to the layers the draft was trained on"
    if algorithm is Algorithm.EAGLE3 and declared is not None and declared != len(guessed):
        found.warn(
            TargetLayersWarning(
                f"No target layers are named, so SGLang taps {shown} from the target's depth "
                f"{depth}, but `num_aux_hidden_states` = {declared} sizes fc for another count.",
                field=field,
                code=codes.LAYERS_GUESSED,
                fix=fix,
                evidence=f"{evidence}; srt/models/llama_eagle3.py sizes fc by "
                "num_aux_hidden_states",
            )
        )
        return
    found.note(
        f"No target layers are named, so the engine taps its guess {shown} (capture indices), "
        f"from the target's depth {depth}.",
        code=codes.LAYERS_GUESSED,
        field=field,
        fix=fix,
        evidence=evidence,
    )


def _guess_source(subject: Subject, algorithm: Algorithm | None) -> tuple[str, str, int] | None:
    """The field that would name the layers, the evidence for SGLang's guess and the depth
    it is made from, where SGLang guesses; ``None`` where the draft names its layers, SGLang
    does not serve it, or the target's depth is unknown."""
    target = subject.target
    if algorithm is None or target is None or target.num_layers is None or _unsupported(subject):
        return None
    get = subject.get
    if algorithm is Algorithm.EAGLE3:
        use, named = eagle_layer_ids(get)
        if not use or named is not None or get("eagle_aux_hidden_state_layer_ids", None):
            return None
        return EAGLE_LAYER_IDS_FIELD, _EAGLE3_DEFAULTS, target.num_layers
    parsed = _parsed(subject)
    if parsed is None or parsed.dflash.target_layer_ids is not None:
        return None
    if parsed.dspark is not None and _dspark_list(parsed):
        return None
    depth = target_depth(target.num_layers, target.num_loops)
    return "dflash_config.target_layer_ids", _DFLASH_DERIVED, depth


def _parsed(subject: Subject) -> SglangDraft | None:
    try:
        return sglang_draft(subject)
    except SglangRefuses:
        return None  # reported by check_sglang_config


# --- RoPE against the target ------------------------------------------------------------------


def check_sglang_rope(subject: Subject, found: Findings) -> None:
    """A drafter that runs at its target's positions (EAGLE-3, DFlash, DSpark) whose RoPE
    differs from the target's: SGLang builds each model's rotary embedding from its own
    config (``srt/models/llama_eagle3.py``: ``rope_parameters``, else ``rope_scaling``, an
    M-RoPE section run as ``default``; ``srt/models/dflash.py``: ``get_rope_config``), so
    the draft rotates unlike the target it was trained beside.  Compared after normalising
    both spellings (:func:`~drafting_config.draft.rope.read_rope`); a warning.  Public
    report: ``vllm-project/speculators`` pull request 574 (a converted EAGLE-3 head lost
    its target's ``rope_type: llama3``).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    target = subject.target
    if target is None or algorithm not in (Algorithm.EAGLE3, Algorithm.DFLASH, Algorithm.DSPARK):
        return
    if _unsupported(subject) is not None:
        return
    draft, theirs = read_rope(subject.get), target_rope(target.readers)
    if draft is None or theirs is None or not rope_difference(draft, theirs):
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"The draft's RoPE ({draft.shown()}) is not its target's ({theirs.shown()}).",
            field=_rope_field(subject.get, draft.rope_type != theirs.rope_type),
            code=codes.ROPE_DIFFERS_FROM_TARGET,
            fix="copy the target's `rope_scaling` (or `rope_parameters`) and `rope_theta` "
            "into the draft's config",
            evidence="srt/models/llama_eagle3.py, srt/models/dflash.py: get_rope reads the "
            "draft's own rope_parameters or rope_scaling and rope_theta; "
            "vllm-project/speculators#574",
        )
    )


def _rope_field(get: FieldGetter, type_differs: bool) -> str:
    if get("rope_parameters", None) is not None:
        return "rope_parameters"
    return "rope_scaling" if type_differs or get("rope_scaling", None) else "rope_theta"


# --- training choices the engine assumes ------------------------------------------------------

_ANCHOR_EVIDENCE: Final = (
    "srt/speculative/dspark_components/dspark_config.py: get_dspark_sample_from_anchor "
    "reads the top-level sample_from_anchor, default True; "
    "srt/speculative/dspark_components/dspark_worker_v2.py sizes the query block by it"
)
_CAUSAL_EVIDENCE: Final = (
    "srt/models/dflash.py: _get_dflash_layer_attention_params (no layer_types: ENCODER_ONLY) "
    "and _get_dflash_attention_type read is_causal only; vllm-project/vllm#43445"
)


FILLS_LAYER_TYPES: Final = frozenset(
    {
        "afmoe",
        "axk2",
        "cohere2",
        "cohere2_moe",
        "cohere_compass",
        "cwm",
        "deepseek_ocr2",
        "deepseek_v32",
        "deepseek_v4",
        "diffusion_gemma",
        "dots1",
        "embedding_gemma2",
        "exaone4",
        "exaone_moe",
        "gemma2",
        "gemma3",
        "gemma3n",
        "gemma4",
        "gemma4_unified",
        "glm5_next",
        "glm_moe_dsa",
        "gpt_oss",
        "granite_swa",
        "granitemoe_swa",
        "granitemoehybrid",
        "hy_v4",
        "inkling",
        "kimi_linear",
        "laguna",
        "lfm2",
        "llama4",
        "mellum",
        "mimo_v2_flash",
        "minimax",
        "minimax_m3_vl",
        "ministral",
        "modernbert",
        "modernbert_decoder",
        "muse_glimmer",
        "muse_glimmer_assistant",
        "nemotron_h",
        "neomme",
        "olmo3",
        "olmo_hybrid",
        "qwen2",
        "qwen2_5_omni",
        "qwen2_5_vl",
        "qwen2_moe",
        "qwen2_vl",
        "qwen3",
        "qwen3_5",
        "qwen3_5_moe",
        "qwen3_next",
        "qwen3_omni_moe",
        "qwen4_exp",
        "smollm3",
        "step3p7",
        "t5gemma",
        "t5gemma2",
        "vaultgemma",
    }
)
"""The model types whose transformers config class (transformers 5.19.0, the release SGLang
0.5.23 pins) fills ``layer_types`` when the file records none (``if self.layer_types is
None:`` in ``configuration_*.py``, e.g. ``Qwen3Config.__post_init__``): SGLang's DFlash
drafter then reads ``is_causal`` through ``_get_dflash_attention_type``, as if the file
listed them.  Read from the wheel; the harness's readings (``sglang_weight_runs.json``,
``dflash-qwen3-4b+causal``) show a Qwen3 draft with ``is_causal`` true and no
``layer_types`` run causal."""


def check_sglang_assumed_defaults(subject: Subject, found: Findings) -> None:
    """Training choices SGLang assumes where the file does not record them:

    * DSpark's ``sample_from_anchor``, true unless the top level says otherwise
      (``get_dspark_sample_from_anchor``, ``dspark_components/dspark_config.py``): a note
      when unrecorded; a warning when only ``dflash_config.sample_from_anchor`` records
      false, which SGLang's DSpark drafter does not read;
    * DFlash's attention causality (``srt/models/dflash.py``): without ``layer_types`` every
      layer runs non-causal whatever ``is_causal`` says (unless transformers' config class
      fills them, :data:`FILLS_LAYER_TYPES`); with them, ``is_causal`` decides,
      else full-attention layers are non-causal and sliding ones causal; vLLM's
      ``dflash_config.causal`` is not read.  A note when neither ``is_causal`` nor
      ``dflash_config.causal`` is recorded; a warning when a recorded ``causal: true``
      (``is_causal`` without ``layer_types``, or ``dflash_config.causal``) is not honoured.

    The notes' text is the same for every draft, so a sweep says each once, in its footer.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm not in (Algorithm.DFLASH, Algorithm.DSPARK) or _unsupported(subject):
        return
    parsed = _parsed(subject)
    if parsed is None:
        return
    get = subject.get
    if parsed.algorithm is Algorithm.DSPARK:
        _anchor_findings(get, found)
    elif parsed.dspark is None:
        _causal_findings(get, found)


def _anchor_findings(get: FieldGetter, found: Findings) -> None:
    if get("sample_from_anchor", MISSING) is not MISSING:
        return
    nested = read_path(get, "dflash_config.sample_from_anchor", MISSING, only_dicts=True)
    if nested is MISSING:
        found.note(
            ANCHOR_NOTE,
            code=codes.SAMPLE_FROM_ANCHOR_ASSUMED,
            field="sample_from_anchor",
            evidence=_ANCHOR_EVIDENCE,
        )
    elif nested is False:
        found.warn(
            ParallelDraftingConfigWarning(
                "`dflash_config.sample_from_anchor` is false, but SGLang's DSpark drafter reads "
                "only the top-level field and drafts anchor-first.",
                field="dflash_config.sample_from_anchor",
                code=codes.SAMPLE_FROM_ANCHOR_ASSUMED,
                fix="set the top-level `sample_from_anchor` to false too",
                evidence=_ANCHOR_EVIDENCE,
            )
        )


def _causal_findings(get: FieldGetter, found: Findings) -> None:
    is_causal = get("is_causal", None)
    stamp = read_path(get, "dflash_config.causal", None, only_dicts=True)
    layer_types = get("layer_types", None)
    if is_causal is None and stamp is None:
        found.note(
            CAUSALITY_NOTE,
            code=codes.CAUSALITY_ASSUMED,
            field="is_causal",
            evidence=_CAUSAL_EVIDENCE,
        )
        return
    ignored = None
    filled = get("model_type", None) in FILLS_LAYER_TYPES
    if is_causal is True and layer_types is None and not filled:
        ignored = "`is_causal` = true without `layer_types`"
    elif is_causal is None and stamp is True:
        ignored = f"`dflash_config.causal` = {describe_value(stamp)}"
    if ignored is None:
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"{ignored} records causal attention, but SGLang runs the drafter's full-attention "
            "layers non-causal.",
            field="is_causal" if is_causal is not None else "dflash_config.causal",
            code=codes.CAUSALITY_ASSUMED,
            fix="set `is_causal` to true and list `layer_types`, which SGLang reads",
            evidence=_CAUSAL_EVIDENCE,
        )
    )
