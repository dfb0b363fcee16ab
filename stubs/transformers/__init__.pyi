# A deliberate, partial stub of `transformers`: only what this repository uses.
# See stubs/README.md for why it exists; tests/test_typing.py runs stubtest on it.
import os
from typing import Any, ClassVar

from typing_extensions import Self

class PreTrainedConfig:
    attribute_map: ClassVar[dict[str, str]]
    # Config fields are dynamic: reads of undeclared attributes are `Any`, as on
    # the real class.
    def __getattribute__(self, key: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...
    def __init_subclass__(cls, *args: Any, **kwargs: Any) -> None: ...
    @classmethod
    def from_dict(cls, config_dict: dict[str, Any], **kwargs: Any) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

PretrainedConfig = PreTrainedConfig

class EuroBertConfig(PreTrainedConfig):
    mask_token_id: int

class LlamaConfig(PreTrainedConfig): ...

class Qwen3Config(PreTrainedConfig):
    hidden_size: int
    vocab_size: int

class AutoConfig:
    @classmethod
    def from_pretrained(
        cls, pretrained_model_name_or_path: str | os.PathLike[str], **kwargs: Any
    ) -> PreTrainedConfig: ...

class AutoTokenizer:
    # Only the benchmarks load a tokenizer, and only to time it: its API is not modelled.
    @classmethod
    def from_pretrained(
        cls, pretrained_model_name_or_path: str | os.PathLike[str], *inputs: Any, **kwargs: Any
    ) -> Any: ...
