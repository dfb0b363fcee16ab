"""What vLLM decides for a draft that starts, where nothing in the files records it: the
target layers it guesses, the RoPE the draft runs with beside the target's, and the
training choices its drafters assume (DSpark's anchor layout, DFlash's causality).

A draft vLLM serves with any of these wrong starts and runs, and only its acceptance says
so (``vllm-project/vllm`` pull request 50170: 1.21% acceptance where 58.9% was expected,
layers guessed for an EAGLE-3 head).  The rules read what the other modules already
computed (the serving runner's layers, :func:`~.runners.default_layers`,
:func:`~.load_path.needs_hidden_states`) and judge nothing again.  The facts below are
the same in vLLM 0.32.0, 0.33.0 and 0.34.0 (``interfaces.py``,
``qwen3_dflash.py: _dflash_layer_causal``, ``dspark/speculator.py`` read alike), so no
rule is gated on the release.
"""

from __future__ import annotations

from typing import Final

from drafting_config.draft.rope import read_rope, rope_difference, target_rope
from drafting_config.engines.vllm.layers import default_layers_finding
from drafting_config.engines.vllm.load_path import needs_hidden_states, subject_architectures
from drafting_config.engines.vllm.names import DFLASH_FC_ARCHITECTURES, FC_METHODS
from drafting_config.engines.vllm.resolution import VllmSubject, tapped_knowing_target
from drafting_config.engines.vllm.runners import (
    EAGLE_CONFIG_EAGLE_LAYER_IDS,
    EAGLE_LAYER_IDS,
    default_layers,
    is_set,
    runner_of,
)
from drafting_config.rules.assumed import ANCHOR_NOTE, CAUSALITY_NOTE
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigWarning,
    TargetLayersWarning,
    bounded_repr,
    describe_value,
)
from drafting_config.values.fields import MISSING, read_field, read_path
from drafting_config.values.findings import Findings, Note
from drafting_config.values.integers import exact_int

GUESSED_LAYERS_EVIDENCE: Final = (
    "vllm/model_executor/models/interfaces.py: "
    "SupportsEagle3.get_eagle3_default_aux_hidden_state_layers returns (2, L // 2, L - 3) "
    "when get_eagle3_aux_layers_from_config returns None; vllm-project/vllm#50170"
)

FIELD_TO_SET: Final = EAGLE_LAYER_IDS
"""The field every runner reads first, as capture indices: the one to set."""

SHARES_POSITIONS: Final = frozenset({"eagle", "eagle3", "ptd", "peagle", "dflash", "dspark"})
"""Methods whose drafter runs at the target's positions, trained with its RoPE (PARD and a
separate draft model are complete models of their own)."""


def check_guessed_layers(subject: VllmSubject, found: Findings) -> None:
    """The draft names no tapped layers, so vLLM taps the target's defaults, ``(2, L // 2,
    L - 3)`` over its language model's ``L`` layers
    (``SupportsEagle3.get_eagle3_default_aux_hidden_state_layers`` in
    ``vllm/model_executor/models/interfaces.py``, when ``get_eagle3_aux_layers_from_config``
    of ``v1/worker/gpu/spec_decode/eagle/eagle3_utils.py`` returns ``None``).

    A note where nothing disagrees: most published EAGLE-3 heads name no layers and were
    trained on these defaults.  A warning where something in the files points elsewhere:

    * ``num_aux_hidden_states``, which sizes an EAGLE-3 head's ``fc``
      (``llama_eagle3.py: LlamaModel.__init__``), is not the number of guessed layers;
    * ``eagle_config.eagle_aux_hidden_state_layer_ids``, which the newer runner does not
      read, names other layers;
    * a drafter of a DFlash or DSpark class (:data:`~.names.DFLASH_FC_ARCHITECTURES`): their
      trainers (z-lab's, SpecForge's) and SGLang derive layers spread evenly from 1 to
      ``L - 3``, not vLLM's three (a config naming no class is not judged so).

    Nothing where the layers are named, the target is not tapped, the target's depth is
    unknown, or :func:`~.layers.default_layers_finding` already reports the guess as failing.
    """
    resolution, target, get = subject.resolution, subject.target, subject.draft.get
    method = resolution.algorithm
    if runner_of(method) is None or target is None or target.num_layers is None:
        return
    if method not in ("ptd", "peagle") and not needs_hidden_states(method, get, subject.version):
        return
    taps = tapped_knowing_target(subject)
    if taps is None or taps.field is not None:
        return
    if default_layers_finding(get, taps, resolution, target) is not None:
        return  # the guess fails outright: reported at the layers step already
    guessed = list(default_layers(target.num_layers))
    shown = bounded_repr(list(guessed))
    field = resolution.file_field(FIELD_TO_SET)
    fix = f"set `{field}` to the capture indices the draft was trained on"
    why = _disagreement(subject, guessed)
    if why is None:
        found.note(
            f"No target layers are named, so the engine taps its guess {shown} (capture indices), "
            f"from the target's depth {target.num_layers}.",
            code=codes.LAYERS_GUESSED,
            field=field,
            fix=fix,
            evidence=GUESSED_LAYERS_EVIDENCE,
        )
        return
    found.warn(
        TargetLayersWarning(
            f"No target layers are named, so vLLM taps {shown} from the target's depth "
            f"{target.num_layers}, but {why}.",
            field=field,
            code=codes.LAYERS_GUESSED,
            fix=fix,
            evidence=GUESSED_LAYERS_EVIDENCE,
        )
    )


def _disagreement(subject: VllmSubject, guessed: list[int]) -> str | None:
    """What in the files points at other layers than vLLM's guess, as a clause; ``None``."""
    get = subject.draft.get
    declared = exact_int(get("num_aux_hidden_states", None))
    if declared is not None and declared != len(guessed):
        return f"`num_aux_hidden_states` = {declared} sizes fc for another count"
    listed = read_path(get, EAGLE_CONFIG_EAGLE_LAYER_IDS, only_dicts=True)
    if is_set(listed):
        ids = [exact_int(item) for item in listed] if isinstance(listed, list) else [None]
        known = [i for i in ids if i is not None]
        if len(known) != len(ids) or sorted(set(known)) != guessed:
            return f"`{EAGLE_CONFIG_EAGLE_LAYER_IDS}` = {describe_value(listed)} names others"
    if _dflash_model(subject):
        return "DFlash trainers and SGLang spread layers evenly from 1 to L - 3 instead"
    return None


def _dflash_model(subject: VllmSubject) -> bool:
    names = subject_architectures(subject)
    return bool(names) and not DFLASH_FC_ARCHITECTURES.isdisjoint(names)


# --- RoPE against the target ------------------------------------------------------------------


def check_rope_against_target(subject: VllmSubject, found: Findings) -> None:
    """A drafter that runs at the target's positions (:data:`SHARES_POSITIONS`) whose RoPE
    differs from the target's: vLLM builds each model's rotary embedding from its own
    config (``get_rope`` with ``config.rope_parameters``, standardised by
    ``patch_rope_parameters`` in ``vllm/transformers_utils/config.py``, which folds
    ``rope_scaling`` and ``rope_theta`` into ``rope_parameters``), so the draft rotates
    its queries and keys unlike the target it was trained beside.  Compared after
    normalising both spellings (:func:`~drafting_config.draft.rope.read_rope`); a warning,
    as a draft may have been trained with its own RoPE on purpose.  Public report: a
    converted EAGLE-3 head lost its target's ``rope_type: llama3``
    (``vllm-project/speculators`` pull request 574).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    target = subject.target
    if target is None or subject.resolution.algorithm not in SHARES_POSITIONS:
        return
    if subject.resolution.speculators is not None:
        return  # vLLM builds the transformer config from the speculators file's own
    draft, theirs = read_rope(subject.draft.get), target_rope(target.readers)
    if draft is None or theirs is None or not rope_difference(draft, theirs):
        return
    field = (
        "rope_parameters"
        if subject.draft.get("rope_parameters", None) is not None
        else (
            "rope_scaling"
            if draft.rope_type != theirs.rope_type or draft.parameters
            else "rope_theta"
        )
    )
    found.warn(
        ParallelDraftingConfigWarning(
            f"The draft's RoPE ({draft.shown()}) is not its target's ({theirs.shown()}).",
            field=field,
            code=codes.ROPE_DIFFERS_FROM_TARGET,
            fix="copy the target's `rope_scaling` (or `rope_parameters`) and `rope_theta` "
            "into the draft's config",
            evidence="vllm/transformers_utils/config.py: patch_rope_parameters; "
            "vllm/model_executor/layers/rotary_embedding: get_rope reads each model's own "
            "rope_parameters; vllm-project/speculators#574",
        )
    )


# --- training choices the engine assumes ------------------------------------------------------

SAMPLE_FROM_ANCHOR_FIELD: Final = "sample_from_anchor"


_ANCHOR_ASSUMED: Final = Note(
    ANCHOR_NOTE,
    code=codes.SAMPLE_FROM_ANCHOR_ASSUMED,
    field=SAMPLE_FROM_ANCHOR_FIELD,
    evidence="vllm/v1/worker/gpu/spec_decode/dspark/speculator.py: DSparkSpeculator.__init__ "
    'reads getattr(hf_config, "sample_from_anchor", True); vllm/config/vllm.py: '
    "num_lookahead_tokens",
)
"""The note of :func:`check_assumed_sample_from_anchor`, the same for every draft it holds for
(made once: a sweep holds it for every DSpark draft)."""

_CAUSALITY_ASSUMED: Final = Note(
    CAUSALITY_NOTE,
    code=codes.CAUSALITY_ASSUMED,
    field="dflash_config.causal",
    evidence="vllm/model_executor/models/qwen3_dflash.py: _dflash_layer_causal reads "
    "is_causal, then dflash_config.causal, else layer_types; vllm-project/vllm#43445",
)
"""The note of :func:`check_assumed_causality`, the same for every draft it holds for."""


def check_assumed_sample_from_anchor(subject: VllmSubject, found: Findings) -> None:
    """A DSpark draft that does not record ``sample_from_anchor``: vLLM assumes true, the
    anchor-first layout (``getattr(hf_config, "sample_from_anchor", True)`` in
    ``DSparkSpeculator.__init__``, ``v1/worker/gpu/spec_decode/dspark/speculator.py``, and
    ``VllmConfig.num_lookahead_tokens``, ``config/vllm.py``), while a draft trained in the
    fill-in layout (false, DFlash's) is served wrong.  A note, collapsed across a sweep.
    Speculators files are left out: vLLM's translation writes the field itself."""
    if subject.resolution.algorithm != "dspark" or subject.resolution.speculators is not None:
        return
    get = subject.draft.get
    if get(SAMPLE_FROM_ANCHOR_FIELD, MISSING) is not MISSING:
        return
    nested = read_field(get, "dflash_config", "sample_from_anchor", MISSING, only_dicts=True)
    if nested is not MISSING:
        return  # judged by check_sample_from_anchor
    found.notes.append(_ANCHOR_ASSUMED)


def check_assumed_causality(subject: VllmSubject, found: Findings) -> None:
    """A drafter built on ``DFlashQwen3Model`` that records no causality: vLLM's
    ``_dflash_layer_causal`` (``vllm/model_executor/models/qwen3_dflash.py``) reads
    ``is_causal``, else ``dflash_config.causal``, else runs each layer non-causal (causal
    only where ``layer_types`` says ``sliding_attention``), so a draft trained causal is
    served non-causal with no error (``vllm-project/vllm`` pull request 43445: a causal
    checkpoint served non-causal lost about 15% of its acceptance length).  A note,
    collapsed across a sweep."""
    get, resolution = subject.draft.get, subject.resolution
    if resolution.algorithm not in FC_METHODS or resolution.speculators is not None:
        return
    names = subject_architectures(subject)
    if names and DFLASH_FC_ARCHITECTURES.isdisjoint(names):
        return
    if get("is_causal", None) is not None:
        return
    if read_field(get, "dflash_config", "causal", None, only_dicts=True) is not None:
        return
    found.notes.append(_CAUSALITY_ASSUMED)
