"""Two facts of vLLM 0.33.0's drafter classes the real engine showed missing:
the EAGLE-3 input width and the DFlash projector types.  Each rule cites the file of
``vllm/model_executor/models/`` it follows.
"""

from __future__ import annotations

from typing import Final

from drafting_config.engines.vllm.codes import EAGLE3_WIDTH, PROJECTOR_UNIMPLEMENTED
from drafting_config.engines.vllm.load_path import serving_architectures
from drafting_config.engines.vllm.resolution import VllmSubject, tapped_knowing_target
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.fields import is_list, read_field
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int

EAGLE3_SIZED_MODULES: Final = frozenset({"llama_eagle3", "deepseek_eagle3"})
"""The EAGLE-3 modules that size ``fc`` from ``num_aux_hidden_states``, else
``eagle_config.eagle_aux_hidden_state_layer_ids``, else 3 (``llama_eagle3.py``:
``LlamaModel.__init__``; ``deepseek_eagle3.py`` likewise); ``qwen3_eagle3.py`` reads the
top-level list too, so it sizes ``fc`` for the layers it taps."""

DOMINO_PROJECTOR: Final = "domino"
"""SpecForge's Domino projector, whose tensors (``prefix_gru.*``, ``embed_proj.*``) no
vLLM DFlash class has."""


def _sized_class(subject: VllmSubject) -> bool:
    rows = vllm_tables(subject.version).registry["_SPECULATIVE_DECODING_MODELS"]
    return any(
        rows[name][0] in EAGLE3_SIZED_MODULES
        for name in serving_architectures(subject)
        if name in rows
    )


def check_eagle3_width(subject: VllmSubject, found: Findings) -> None:
    """An EAGLE-3 draft's ``fc`` is sized for the layers it says it taps, but the runner
    taps the top-level ``eagle_aux_hidden_state_layer_ids``
    (``v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``:
    ``get_eagle3_aux_layers_from_config``; sorted and de-duplicated), while
    ``llama_eagle3.py`` (``LlamaModel.__init__``) sizes ``fc`` and the pre-``fc`` norm
    from ``num_aux_hidden_states``, else ``eagle_config.eagle_aux_hidden_state_layer_ids``,
    else 3.  When the two counts differ, ``combine_hidden_states`` fails at the first
    forward pass: the real engine raised "Attempting to broadcast a dimension of length
    12288" on the speculators issue #1065 config (4 taps, a norm sized for 3).  Compared
    only when the draft names its layers (the target's defaults are the target's) and
    uses aux hidden states (``eagle_config.use_aux_hidden_state``, default true).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    if subject.resolution.algorithm not in ("eagle3", "ptd", "peagle"):
        return
    get = subject.draft.get
    eagle_config = get("eagle_config", None)
    eagle = eagle_config if isinstance(eagle_config, dict) else {}
    if eagle.get("use_aux_hidden_state", True) is False or not _sized_class(subject):
        return
    taps = tapped_knowing_target(subject)
    if taps is None or taps.ids is None:
        return
    tapped = len(set(taps.ids))
    declared = exact_int(get("num_aux_hidden_states", None))
    listed = eagle.get("eagle_aux_hidden_state_layer_ids")
    if declared is not None:
        sized, why = declared, f"`num_aux_hidden_states` = {declared}"
    elif is_list(listed) and listed:
        sized = len(listed)
        why = "eagle_config's list"
    else:
        sized, why = 3, "the default"
    if sized == tapped:
        return
    field = subject.resolution.file_field(taps.field or "eagle_aux_hidden_state_layer_ids")
    found.error(
        ParallelDraftingConfigError(
            f"`{field}` taps {tapped} target layers but fc is sized for {sized} ({why}), so "
            "vLLM fails at the first forward pass.",
            field=field,
            code=EAGLE3_WIDTH,
            fix=f"set `num_aux_hidden_states` to {tapped} if the checkpoint's fc is {tapped} "
            f"layers wide, else tap {sized} layers",
            evidence="vllm/model_executor/models/llama_eagle3.py: LlamaModel.__init__ sizes "
            "fc and its pre-fc norm; vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py: "
            "get_eagle3_aux_layers_from_config",
        )
    )


def check_projector_type(subject: VllmSubject, found: Findings) -> None:
    """``dflash_config.projector_type``: no DFlash or DSpark file of vLLM 0.33.0 reads it
    (``qwen3_dflash.py``, ``qwen3_dflash2.py``, ``qwen3_dspark.py``: only the vision
    models' files name a ``projector_type``), so vLLM builds its plain drafter whatever it
    says.  ``"dspark"`` is SpecForge's DSpark layout (served as ``dspark``).  ``"domino"``
    is an error: Domino's tensors (``prefix_gru.*``, ``embed_proj.*``) have no parameter
    to load into (``model_executor/models/utils.py``: "There is no module or parameter
    named ...").  Any other value is a warning: the projector is ignored.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    if subject.resolution.speculators is not None:
        return
    if subject.resolution.algorithm not in ("dflash", "dspark"):
        return
    projector = read_field(subject.draft.get, "dflash_config", "projector_type", only_dicts=True)
    if not isinstance(projector, str) or projector == "dspark":
        return
    shown = f"`dflash_config.projector_type` = {projector!r}"
    if projector == DOMINO_PROJECTOR:
        found.error(
            ParallelDraftingConfigError(
                f"{shown} has no vLLM drafter, so vLLM builds a plain DFlash one and fails "
                "loading Domino's tensors.",
                field="dflash_config.projector_type",
                code=PROJECTOR_UNIMPLEMENTED,
                fix="serve the draft with SGLang, whose DFlashDraftModel reads "
                "`projector_type`, or train a plain DFlash drafter",
                evidence="vllm/model_executor/models/utils.py: AutoWeightsLoader._load_module "
                'raises ValueError "There is no module or parameter named" (prefix_gru.*, '
                "embed_proj.*)",
            )
        )
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"{shown} is read by no vLLM drafter, so vLLM ignores it and fails loading any "
            "projector tensors.",
            field="dflash_config.projector_type",
            code=PROJECTOR_UNIMPLEMENTED,
            evidence="vllm/model_executor/models/qwen3_dflash.py, qwen3_dflash2.py, "
            "qwen3_dspark.py: no projector_type is read",
        )
    )
