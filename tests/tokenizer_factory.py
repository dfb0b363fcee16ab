"""Write realistic tokenizer directories, with the ``tokenizers`` library, for tests and benchmarks.

:func:`write_tokenizer` builds a base vocabulary (BPE with merges, WordPiece or
Unigram), adds tokens after it as the ``tokenizers`` library numbers them, and
writes ``tokenizer.json`` plus ``tokenizer_config.json`` (and, for the older
layouts, ``special_tokens_map.json``) the way one generation of
``transformers`` wrote them.  Layouts of real models are ready-made:
:func:`write_qwen3_like` (151,643 BPE tokens with merges and 26 added tokens
at full size) and :func:`write_llama3_like` (special tokens up to the vocab
size, no unused rows).

``tokenizers`` is imported when a tokenizer is written, not when this module is.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "QWEN3_ADDED",
    "QWEN3_BASE_VOCAB",
    "QWEN3_SPECIALS",
    "ROLES",
    "Added",
    "ConfigStyle",
    "ModelKind",
    "added_tokens_decoder",
    "base_vocabulary",
    "llama3_added",
    "write_llama3_like",
    "write_qwen3_like",
    "write_tokenizer",
]

ROLES = ("bos", "eos", "unk", "sep", "pad", "cls", "mask")
"""The special-token roles a tokenizer config can name, as ``<role>_token``."""

ModelKind = Literal["BPE", "WordPiece", "Unigram"]

ConfigStyle = Literal["v5", "v4", "legacy", "map-only"]
"""How ``tokenizer_config.json`` names the special tokens:

- ``"v5"``: names as strings only, as transformers 5 writes it;
- ``"v4"``: names as strings plus ``added_tokens_decoder`` (transformers 4.3x);
- ``"legacy"``: names as ``{"content": ...}`` dicts, ``added_tokens_decoder``, and a
  ``special_tokens_map.json`` beside it;
- ``"map-only"``: no names in ``tokenizer_config.json``; they are in
  ``special_tokens_map.json`` (transformers 4.2x and earlier).
"""


@dataclass(frozen=True)
class Added:
    """A token added after the base vocabulary."""

    content: str
    special: bool = True


QWEN3_BASE_VOCAB = 151_643
"""Qwen3's base vocabulary: ids 0..151642, then the added tokens."""

QWEN3_ADDED: tuple[Added, ...] = (
    *(
        Added(f"<|{name}|>")
        for name in (
            "endoftext",
            "im_start",
            "im_end",
            "object_ref_start",
            "object_ref_end",
            "box_start",
            "box_end",
            "quad_start",
            "quad_end",
            "vision_start",
            "vision_end",
            "vision_pad",
            "image_pad",
            "video_pad",
        )
    ),
    Added("<tool_call>", special=False),
    Added("</tool_call>", special=False),
    *(
        Added(f"<|{name}|>", special=False)
        for name in ("fim_prefix", "fim_middle", "fim_suffix", "fim_pad", "repo_name", "file_sep")
    ),
    Added("<tool_response>", special=False),
    Added("</tool_response>", special=False),
    Added("<think>", special=False),
    Added("</think>", special=False),
)
"""Qwen3's 26 added tokens in id order: 14 special, then 12 that are not."""

QWEN3_SPECIALS: Mapping[str, str] = {"pad": "<|endoftext|>", "eos": "<|im_end|>"}
"""Qwen3's named special tokens (it has no bos, unk or mask token)."""


def llama3_added(count: int) -> tuple[Added, ...]:
    """Llama 3's special tokens, all special, cut or padded with reserved ones to ``count``."""
    named = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|reserved_special_token_2|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",
        "<|python_tag|>",
    ]
    reserved = (f"<|reserved_special_token_{n}|>" for n in range(3, 3 + count))
    tokens = [*named, *reserved][:count]
    return tuple(Added(text) for text in tokens)


def _alphabet() -> list[str]:
    """256 printable characters, one per byte, as byte-level BPE vocabularies start."""
    chars = [chr(c) for c in (*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100))]
    code = 0x100
    while len(chars) < 256:
        chars.append(chr(code))
        code += 1
    return chars


def base_vocabulary(
    size: int, *, first: Sequence[str] = (), seed: int = 0
) -> tuple[list[str], list[tuple[str, str]]]:
    """``size`` distinct token texts in id order, and the BPE merges that make them.

    The texts are ``first``, then single characters, then merges of an earlier
    token with a character, as byte-level BPE vocabularies grow.
    """
    rng = random.Random(seed)
    alphabet = [c for c in _alphabet() if c not in first]
    texts = list(first) + alphabet[: max(0, size - len(first))]
    seen = set(texts)
    merges: list[tuple[str, str]] = []
    grown_from = len(first)
    while len(texts) < size:
        left = texts[rng.randrange(grown_from, len(texts))]
        right = alphabet[rng.randrange(len(alphabet))]
        text = left + right
        if text in seen:
            continue
        seen.add(text)
        texts.append(text)
        merges.append((left, right))
    return texts[:size], merges


def write_tokenizer(
    directory: Path,
    *,
    vocab_size: int,
    added: Sequence[Added] = (),
    specials: Mapping[str, str] | None = None,
    extra_specials: Sequence[str] = (),
    model: ModelKind = "BPE",
    config_style: ConfigStyle = "v5",
    vocab_first: Sequence[str] = (),
    vocab_holes: Sequence[int] = (),
    tokenizer_json: bool = True,
    seed: int = 0,
) -> Path:
    """Write a tokenizer directory and return it.

    Args:
        directory: created if missing.
        vocab_size: tokens in the base vocabulary (ids 0..vocab_size-1, less holes).
        added: tokens added after it, numbered by the ``tokenizers`` library
            (a token whose text is already in the vocabulary keeps that id).
        specials: role (``"pad"``, ``"eos"``, ...) to token text, written into
            the config files per ``config_style``.
        extra_specials: further special tokens, written as
            ``extra_special_tokens`` (v5) or ``additional_special_tokens``.
        model: the ``tokenizer.json`` model type.
        config_style: see :data:`ConfigStyle`.
        vocab_first: texts placed first in the base vocabulary (``"<unk>"``).
        vocab_holes: ids the base vocabulary skips (its ids are shifted past them).
        tokenizer_json: write ``tokenizer.json`` (else only the config files).
        seed: for the generated vocabulary.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    specials = dict(specials or {})
    directory.mkdir(parents=True, exist_ok=True)
    texts, merges = base_vocabulary(vocab_size, first=vocab_first, seed=seed)
    holes = set(vocab_holes)
    ids = [i for i in range(vocab_size + len(holes)) if i not in holes][:vocab_size]
    if model == "BPE":
        backend = Tokenizer(models.BPE(vocab=dict(zip(texts, ids, strict=True)), merges=merges))
        backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        backend.decoder = decoders.ByteLevel()
    elif model == "WordPiece":
        unk = specials["unk"] if specials.get("unk") in texts else texts[0]
        backend = Tokenizer(
            models.WordPiece(vocab=dict(zip(texts, ids, strict=True)), unk_token=unk)
        )
    else:
        if holes:
            raise ValueError("a Unigram vocabulary is a list: it cannot have holes")
        scores = [(text, -1.0 - index / 100) for index, text in enumerate(texts)]
        unk_id = texts.index(specials["unk"]) if specials.get("unk") in texts else None
        backend = Tokenizer(models.Unigram(scores, unk_id=unk_id, byte_fallback=False))
    add_tokens(backend, added)
    if tokenizer_json:
        backend.save(str(directory / "tokenizer.json"))
    decoder = added_tokens_decoder(backend)
    _write_configs(directory, specials, extra_specials, decoder, config_style)
    return directory


def _write_configs(
    directory: Path,
    specials: Mapping[str, str],
    extra_specials: Sequence[str],
    decoder: Mapping[str, object],
    style: ConfigStyle,
) -> None:
    config: dict[str, object] = {"model_max_length": 40960}
    names: dict[str, object] = {f"{role}_token": text for role, text in specials.items()}
    if extra_specials:
        key = "extra_special_tokens" if style == "v5" else "additional_special_tokens"
        names[key] = list(extra_specials)
    if style == "v5":
        config |= {"backend": "tokenizers", "tokenizer_class": "TokenizersBackend", **names}
    else:
        config |= {"tokenizer_class": "PreTrainedTokenizerFast"}
        if style in ("v4", "legacy"):
            config["added_tokens_decoder"] = decoder
        if style == "v4":
            config |= names
        elif style == "legacy":
            config |= {key: _dict_form(text) for key, text in names.items()}
    if style in ("legacy", "map-only"):
        special_map = {key: _dict_form(text) for key, text in names.items()}
        (directory / "special_tokens_map.json").write_text(json.dumps(special_map, indent=2))
    (directory / "tokenizer_config.json").write_text(json.dumps(config, indent=2))


def _dict_form(text: object) -> object:
    if not isinstance(text, str):
        return text  # a list of extra tokens stays a list of strings
    return {
        "__type": "AddedToken",
        "content": text,
        "lstrip": False,
        "normalized": False,
        "rstrip": False,
        "single_word": False,
    }


def write_qwen3_like(
    directory: Path, *, vocab_size: int = QWEN3_BASE_VOCAB, config_style: ConfigStyle = "v5"
) -> Path:
    """A tokenizer laid out like Qwen3's: BPE base vocabulary, then its 26 added tokens.

    At the default size, ids run 0..151668 (tokenizer length 151,669) as in
    Qwen3, whose embedding table has 151,936 rows: the rows past the
    tokenizer are unused, and DFlash's mask id 151669 is the first of them.
    """
    return write_tokenizer(
        directory,
        vocab_size=vocab_size,
        added=QWEN3_ADDED,
        specials=QWEN3_SPECIALS,
        config_style=config_style,
    )


def write_llama3_like(
    directory: Path,
    *,
    vocab_size: int = 128_000,
    added_count: int = 256,
    config_style: ConfigStyle = "v5",
) -> Path:
    """A tokenizer laid out like Llama 3's: BPE base vocabulary, then special tokens only.

    At the default sizes the special tokens fill ids 128000..128255, so every
    row of a 128,256-row embedding table holds a token.
    """
    tokens = llama3_added(added_count)
    specials = {"bos": tokens[0].content, "eos": tokens[min(9, added_count - 1)].content}
    return write_tokenizer(
        directory,
        vocab_size=vocab_size,
        added=tokens,
        specials=specials,
        config_style=config_style,
    )


def read_added_tokens(directory: Path) -> list[dict[str, object]]:
    """The ``added_tokens`` list of a written ``tokenizer.json``."""
    data = json.loads((directory / "tokenizer.json").read_text())
    added: list[dict[str, object]] = data["added_tokens"]
    return added


def add_tokens(backend: Any, added: Sequence[Added]) -> None:
    """Append ``added`` to a ``tokenizers.Tokenizer`` in order, as transformers adds them
    (special tokens unnormalized), so each gets the next free id."""
    from tokenizers import AddedToken

    for token in added:
        entry = AddedToken(token.content, special=token.special, normalized=not token.special)
        if token.special:
            backend.add_special_tokens([entry])
        else:
            backend.add_tokens([entry])


def added_tokens_decoder(backend: Any) -> dict[str, dict[str, object]]:
    """``added_tokens_decoder`` of ``tokenizer_config.json`` for a ``tokenizers.Tokenizer``,
    as transformers writes it."""
    return {
        str(token_id): {
            "content": token.content,
            "lstrip": False,
            "normalized": not token.special,
            "rstrip": False,
            "single_word": False,
            "special": token.special,
        }
        for token_id, token in sorted(backend.get_added_tokens_decoder().items())
    }
