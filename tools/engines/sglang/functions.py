"""SGLang's own functions, taken from its released wheel with :mod:`tools.wheels`, for the
differential tests.

SGLang 0.5.23 (``sglang_wheel``), each runnable on a plain ``dict`` config or an
attribute object:

* ``sglang_functions(wheel) -> SglangFunctions`` with
  ``.parse_dflash_draft_config(draft_hf_config=...)``,
  ``.parse_dspark_draft_config(draft_hf_config=...)``,
  ``.build_target_layer_ids(num_target_layers, num_draft_layers)``,
  ``.dflash_aux_hidden_state(draft, target, algorithm="dflash")`` and
  ``.eagle_aux_hidden_state(draft, target)``. The last two run
  ``_resolve_dflash_aux_hidden_state`` / ``_resolve_eagle_aux_hidden_state`` on the
  draft config and the target config (each a dict or an attribute object) and return
  the ``SpecAuxHiddenStateConfig`` they fill in (``.dflash_target_layer_ids``,
  ``.eagle_aux_hidden_state_layer_ids``, ...), before any target class's own shift.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Final

from tools.wheels import MSGSPEC, Wheel, WheelSpec

__all__ = [
    "SGLANG",
    "SGLANG_AUX_FILE",
    "SGLANG_DFLASH_FILE",
    "SGLANG_DSPARK_FILE",
    "SGLANG_MODEL_CONFIG_FILE",
    "SglangFunctions",
    "sglang_functions",
]


SGLANG: Final = WheelSpec("sglang", "0.5.23")
"""The release the differential tests run SGLang's functions of (the ``sglang_wheel`` fixture)."""


SGLANG_DFLASH_FILE: Final = "sglang/srt/speculative/dflash_utils.py"
SGLANG_DSPARK_FILE: Final = "sglang/srt/speculative/dspark_components/dspark_config.py"
SGLANG_MODEL_CONFIG_FILE: Final = "sglang/srt/configs/model_config.py"
SGLANG_AUX_FILE: Final = (
    "sglang/srt/model_executor/model_runner_components/spec_aux_hidden_state.py"
)


@dataclass(frozen=True)
class _Algorithm:
    """A stand-in for SGLang's ``SpeculativeAlgorithm`` member."""

    name: str

    def is_dflash_family(self) -> bool:
        return self.name in {"dflash", "dspark"}

    def is_dspark(self) -> bool:
        return self.name == "dspark"

    def is_eagle(self) -> bool:  # EAGLE3 counts as EAGLE in SGLang's enum
        return self.name in {"eagle", "eagle3"}

    def is_eagle3(self) -> bool:
        return self.name == "eagle3"

    def is_standalone(self) -> bool:
        return self.name == "standalone"

    def is_none(self) -> bool:
        return self.name == "none"


@dataclass
class _ModelConfig:
    """A stand-in for SGLang's ``ModelConfig``: what the aux-hidden-state code reads."""

    hf_config: object
    num_nextn_predict_layers: int | None = None
    num_hidden_layers: int = 1
    num_attention_layers: int = 1
    is_hybrid_swa: bool = False
    is_deepseek_v4_arch: bool = False
    swa_attention_layer_ids: list[int] = field(default_factory=list)

    @property
    def hf_text_config(self) -> object:
        text = _attribute(self.hf_config, "text_config")
        return self.hf_config if text is None else text


def _attribute(config: object, name: str) -> object:
    if isinstance(config, Mapping):
        return config.get(name)
    return getattr(config, name, None)


def _as_attributes(config: object) -> object:
    """A dict config as the attribute object SGLang's ``ModelConfig.hf_config`` is (its
    nested sections stay dicts, as transformers leaves them)."""
    if isinstance(config, Mapping):
        return SimpleNamespace(**config)
    return config


@dataclass(frozen=True)
class SglangFunctions:
    """SGLang 0.5.23's config-reading functions, from the wheel."""

    parse_dflash_draft_config: Callable[..., Any]
    parse_dspark_draft_config: Callable[..., Any]
    build_target_layer_ids: Callable[[int, int], list[int]]
    resolve_dflash: Callable[..., None]
    resolve_eagle: Callable[..., None]
    aux_config_class: Callable[..., Any]
    set_context: Callable[[object, object], None]

    def dflash_aux_hidden_state(
        self, draft: object, target: object, *, algorithm: str = "dflash"
    ) -> Any:
        """``_resolve_dflash_aux_hidden_state`` for ``draft`` served on ``target``."""
        return self._run(self.resolve_dflash, draft, target, algorithm)

    def eagle_aux_hidden_state(self, draft: object, target: object) -> Any:
        """``_resolve_eagle_aux_hidden_state`` for an EAGLE-3 ``draft`` on ``target``."""
        return self._run(self.resolve_eagle, draft, target, "eagle3")

    def _run(
        self, function: Callable[..., None], draft: object, target: object, algorithm: str
    ) -> Any:
        draft_config = _as_attributes(draft)
        self.set_context(draft_config, _as_attributes(target))
        config = self.aux_config_class(is_dspark=algorithm == "dspark")
        function(
            config=config,
            server_args=SimpleNamespace(),
            model_config=_ModelConfig(_as_attributes(target)),
            spec_algorithm=_Algorithm(algorithm),
            is_draft_worker=False,
        )
        return config


def sglang_functions(wheel: Wheel) -> SglangFunctions:
    dflash = wheel.extract(
        SGLANG_DFLASH_FILE,
        ["parse_dflash_draft_config", "build_target_layer_ids", "DEFAULT_DFLASH_MASK_TOKEN"],
    )
    dflash_module = SimpleNamespace(**dflash)
    dspark = wheel.extract(
        SGLANG_DSPARK_FILE,
        ["parse_dspark_draft_config"],
        modules={
            "msgspec": MSGSPEC,
            "sglang.srt.speculative.dflash_utils": dflash_module,
        },
    )
    model_config = wheel.extract(SGLANG_MODEL_CONFIG_FILE, ["is_deepseek_v4"])
    draft_holder: dict[str, object] = {}

    def from_server_args(server_args: object, **kwargs: object) -> _ModelConfig:
        draft = draft_holder["draft"]
        layers = _attribute(draft, "num_hidden_layers")
        return _ModelConfig(draft, num_hidden_layers=layers if isinstance(layers, int) else 1)

    model_config_class = SimpleNamespace(from_server_args=from_server_args)
    spec = SimpleNamespace(
        speculative_draft_model_path="draft", speculative_draft_model_revision=None
    )
    aux = wheel.extract(
        SGLANG_AUX_FILE,
        [
            "SpecAuxHiddenStateConfig",
            "_resolve_dflash_aux_hidden_state",
            "_resolve_eagle_aux_hidden_state",
        ],
        stand_ins={
            "ModelConfig": model_config_class,
            "get_spec": lambda: spec,
            "is_deepseek_v4": model_config["is_deepseek_v4"],
        },
        modules={
            "msgspec": MSGSPEC,
            "sglang.srt.speculative.dflash_utils": dflash_module,
            "sglang.srt.speculative.dspark_components.dspark_config": SimpleNamespace(**dspark),
        },
    )

    def set_context(draft: object, target: object) -> None:
        draft_holder["draft"] = draft

    return SglangFunctions(
        parse_dflash_draft_config=dflash["parse_dflash_draft_config"],
        parse_dspark_draft_config=dspark["parse_dspark_draft_config"],
        build_target_layer_ids=dflash["build_target_layer_ids"],
        resolve_dflash=aux["_resolve_dflash_aux_hidden_state"],
        resolve_eagle=aux["_resolve_eagle_aux_hidden_state"],
        aux_config_class=aux["SpecAuxHiddenStateConfig"],
        set_context=set_context,
    )
