"""What a model directory's tokenizer files say about a token id, read offline.

Reads ``tokenizer.json``, ``tokenizer_config.json`` and ``special_tokens_map.json``
as JSON only: neither ``transformers`` nor ``tokenizers`` is imported.  The
result, :class:`TokenizerFiles`, answers the questions a parallel-drafting
mask id raises: which token (if any) sits at an id (:meth:`TokenizerFiles.describe`),
at which id a text sits (:meth:`TokenizerFiles.id_of`), and which tokens the
tokenizer names as its pad, eos, bos, unk and mask tokens
(:attr:`TokenizerFiles.special_tokens`).

What is read:

- ``tokenizer.json``: ``model.vocab``, either an object mapping token text to id
  (BPE, WordPiece, WordLevel) or a list of ``[piece, score]`` pairs (Unigram,
  id = position); ``added_tokens``, a list of ``{"id", "content", "special"}``;
  ``model.type``.  Merges and everything else are not looked at.
- ``tokenizer_config.json``: ``<role>_token`` for each role in
  :data:`SPECIAL_TOKEN_ROLES`, as a string or, in older files, as an object
  with ``"content"``; ``additional_special_tokens`` / ``extra_special_tokens``;
  ``added_tokens_decoder`` (``{"<id>": {"content", "special"}}``), which gives
  the added tokens when there is no ``tokenizer.json``, and otherwise adds
  those that ``tokenizer.json`` lacks (all of them when it has no
  ``added_tokens`` list), as transformers does on load.
- ``special_tokens_map.json``: the same names.  As in ``transformers`` 5, it is
  read only when ``tokenizer_config.json`` has no ``added_tokens_decoder``,
  and then the names it has win.

The facts are those of the tokenizer that ``transformers`` builds from these
files.  A token named for a role (pad, eos, ...) is a special added token, even
one that ``tokenizer.json`` has only in its base vocabulary or adds as not
special; an extra special token is one too, unless ``tokenizer.json`` already
adds it, when it keeps its flag.  A named token that no file gives an id is
appended after the highest id, in :data:`SPECIAL_TOKEN_ROLES` order and then
the extra ones, as ``transformers`` appends it when loading.

Ids are taken as the files state them.  Each file is refused over
:data:`MAX_TOKENIZER_FILE_BYTES`; every problem is a
:class:`~drafting_config.files.json_files.ConfigFileError` naming the file and, for a
malformed part, its JSON path (``added_tokens[3].id``).
"""

from __future__ import annotations

import enum
import json
import operator
import os
from collections.abc import Mapping, ValuesView
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, cast

from drafting_config.files.json_files import ConfigFileError, read_json_object
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value
from drafting_config.values.paths import PathArgument, as_path

__all__ = [
    "AddedToken",
    "SpecialToken",
    "TokenFacts",
    "TokenKind",
    "TokenizerFiles",
    "load_tokenizer_files",
]

TOKENIZER_JSON_NAME: Final = "tokenizer.json"
TOKENIZER_CONFIG_NAME: Final = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_NAME: Final = "special_tokens_map.json"
TOKENIZER_FILE_NAMES: Final = (TOKENIZER_JSON_NAME, TOKENIZER_CONFIG_NAME, SPECIAL_TOKENS_MAP_NAME)
"""The files looked for in a directory, in the order they are read."""

MAX_TOKENIZER_FILE_BYTES: Final = 64 << 20
"""Larger tokenizer files are refused unread; real ``tokenizer.json`` files run 3 to ~33 MB."""

SPECIAL_TOKEN_ROLES: Final = ("bos", "eos", "unk", "sep", "pad", "cls", "mask")
"""The roles read from ``<role>_token`` in the config files, in the order transformers
appends the tokens that the vocabulary lacks."""

_EXTRA_KEYS: Final = ("additional_special_tokens", "extra_special_tokens")
"""Lists of further special tokens: transformers 4's name, then 5's (a list, or an object)."""

_MAX_ID: Final = 2**31 - 1
_FIRST: Final = operator.itemgetter(0)
_SECOND: Final = operator.itemgetter(1)


class TokenKind(str, enum.Enum):
    """What an embedding row holds, as far as the tokenizer files say."""

    SPECIAL = "special"
    """An added token marked ``"special": true``: ``<|endoftext|>``,
    ``<|reserved_special_token_18|>``."""

    ADDED = "added"
    """An added token marked ``"special": false`` (Qwen3's ``<think>``, ``<tool_call>``)."""

    UNUSED = "unused"
    """No token has this id: at or past :attr:`TokenizerFiles.length`, or a gap in the ids."""

    ORDINARY = "ordinary"
    """A token of the base vocabulary (``model.vocab``) that is not an added token."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class TokenFacts:
    """What the tokenizer files say about one id."""

    id: int
    """The id asked about."""

    kind: TokenKind
    """Special, added, unused or ordinary."""

    text: str | None
    """The added token's content, the raw vocabulary string (``"Ġthe"``) of an
    ordinary token, or ``None`` for an unused id."""


@dataclass(frozen=True)
class AddedToken:
    """A token of ``added_tokens`` (or, without ``tokenizer.json``, of ``added_tokens_decoder``)."""

    id: int
    text: str
    special: bool


@dataclass(frozen=True)
class SpecialToken:
    """A token the config files name for a role, such as the pad or eos token."""

    role: str
    """One of :data:`SPECIAL_TOKEN_ROLES`."""

    text: str
    """The token's text as the config names it."""

    id: int | None
    """Its id: :meth:`TokenizerFiles.id_of` of the text, or the id it is appended at
    when no file has it.  ``None`` only without ``tokenizer.json``, when a text
    that ``added_tokens_decoder`` lacks cannot be placed."""


@dataclass(frozen=True, eq=False)
class TokenizerFiles:
    """The tokenizer files of one directory, parsed; answers questions about ids.

    Built by :func:`load_tokenizer_files`.  Lookups that need an index build it
    on first use.
    """

    directory: str
    """The directory the files were read from."""

    files: tuple[str, ...]
    """The names of the files found there, in :data:`TOKENIZER_FILE_NAMES` order."""

    model_type: str | None
    """``model.type`` of ``tokenizer.json`` (``"BPE"``, ``"Unigram"``, ...), if given."""

    length: int | None
    """One past the highest id of any token (base vocabulary, added, or appended
    named token), or ``None`` without ``tokenizer.json``, when the base
    vocabulary is unknown.

    With ids 0..N-1 all taken (Qwen3, Llama 3, Gemma), this is ``len(tokenizer)``
    in ``transformers``: the base vocabulary plus the added tokens not in it
    (151,669 for Qwen3).  Every id at or past it is :attr:`TokenKind.UNUSED`, and so
    is any id below it that no token has (a gap); ``transformers`` counts
    tokens instead, so with gaps its ``len(tokenizer)`` is smaller.
    """

    added_tokens: tuple[AddedToken, ...] = field(repr=False)
    """The added tokens by id, as ``transformers``' ``added_tokens_decoder`` has them
    once loaded: those of ``tokenizer.json`` (or, without it, of
    ``added_tokens_decoder``), with every named token among them as special."""

    special_tokens: Mapping[str, SpecialToken]
    """Role (``"pad"``, ``"eos"``, ``"bos"``, ``"unk"``, ``"mask"``, ``"cls"``, ``"sep"``)
    to the token the config files name for it; roles they do not name, or name as
    ``null``, are absent."""

    _vocab: dict[str, int] | list[str] | None = field(repr=False)
    """``model.vocab`` as text -> id, or Unigram pieces by id; ``None`` without tokenizer.json."""

    _added_by_id: Mapping[int, AddedToken] = field(repr=False)
    _added_by_text: Mapping[str, int] = field(repr=False)
    _by_id: dict[int, str] = field(default_factory=dict, repr=False)
    """A text -> id vocabulary inverted, built on the first lookup by id."""
    _by_text: dict[str, int] = field(default_factory=dict, repr=False)
    """A Unigram piece list inverted, built on the first lookup by text."""

    def describe(self, token_id: int) -> TokenFacts | None:
        """What holds ``token_id``: a special or added token, a base-vocabulary token, or nothing.

        Returns ``None`` only when there is no ``tokenizer.json`` and ``token_id``
        is not an added token of ``added_tokens_decoder``: the files cannot say.

        Raises:
            ParallelDraftingConfigError: ``token_id`` is not a non-negative int
                (bools are refused; an int subclass counts as its own value).
        """
        token_id = _token_id_argument(token_id)
        added = self._added_by_id.get(token_id)
        if added is not None:
            kind = TokenKind.SPECIAL if added.special else TokenKind.ADDED
            return TokenFacts(token_id, kind, added.text)
        if self.length is None:
            return None
        text = self._vocab_text(token_id) if token_id < self.length else None
        if text is None:
            return TokenFacts(token_id, TokenKind.UNUSED, None)
        return TokenFacts(token_id, TokenKind.ORDINARY, text)

    def id_of(self, text: str) -> int | None:
        """The id of the token whose text is ``text``: an added token's, else the vocabulary's.

        Returns ``None`` when no token has that text.

        Raises:
            ParallelDraftingConfigError: ``text`` is not a str.
        """
        if not issubclass(type(text), str):
            raise ParallelDraftingConfigError(
                f"`text` must be a token string; got {describe_value(text)}.",
                code=codes.API_ARGUMENT_INVALID,
                fix="pass the token's text as a str",
            )
        token_id = self._added_by_text.get(text)
        if token_id is not None:
            return token_id
        vocab = self._vocab
        if isinstance(vocab, dict):
            return vocab.get(text)
        if vocab and not self._by_text:  # Unigram: index the pieces once
            self._by_text.update(zip(vocab, range(len(vocab)), strict=True))
        return self._by_text.get(text)

    def _vocab_text(self, token_id: int) -> str | None:
        vocab = self._vocab
        if isinstance(vocab, list):
            return vocab[token_id] if token_id < len(vocab) else None
        if vocab and not self._by_id:  # when two texts share an id, the later one wins
            self._by_id.update(zip(vocab.values(), vocab, strict=True))
        return self._by_id.get(token_id)


def load_tokenizer_files(directory: PathArgument) -> TokenizerFiles | None:
    """Read the tokenizer files of a model (or tokenizer) directory.

    Returns ``None`` when the directory holds none of :data:`TOKENIZER_FILE_NAMES`.

    Raises:
        ConfigFileError: ``directory`` is missing or not a directory, or one of
            the files cannot be read, is over :data:`MAX_TOKENIZER_FILE_BYTES`,
            is not JSON, or has a malformed part (named by its JSON path).
        ParallelDraftingConfigError: ``directory`` is not a path at all.
    """
    name = as_path(directory, argument="directory")
    if not os.path.isdir(name):
        problem = (
            "not a directory; expected a model or tokenizer directory."
            if os.path.lexists(name)
            else "no such directory (not found locally)."
        )
        raise ConfigFileError(
            name,
            problem,
            unavailable=True,
            code=codes.TOKENIZER_NOT_FOUND,
            fix="pass a model or tokenizer directory that exists",
        )
    found: dict[str, dict[str, object]] = {}
    for file_name in TOKENIZER_FILE_NAMES:
        path = os.path.join(name, file_name)
        if os.path.lexists(path):
            found[file_name] = read_json_object(
                path, max_bytes=MAX_TOKENIZER_FILE_BYTES, what=file_name
            )
    if not found:
        return None
    return _build(name, found)


def _build(directory: str, found: Mapping[str, Mapping[str, object]]) -> TokenizerFiles:
    config_path = os.path.join(directory, TOKENIZER_CONFIG_NAME)
    config = found.get(TOKENIZER_CONFIG_NAME, {})
    decoder = _added_tokens_decoder(config_path, config)
    tokenizer = found.get(TOKENIZER_JSON_NAME)
    vocab: dict[str, int] | list[str] | None = None
    model_type: str | None = None
    if tokenizer is None:
        added = decoder
        top = None
    else:
        tokenizer_path = os.path.join(directory, TOKENIZER_JSON_NAME)
        vocab, model_type, top = _model(tokenizer_path, tokenizer)
        added = _added_tokens(tokenizer_path, tokenizer.get("added_tokens"))
        top = max(top, *(token.id for token in added)) if added else top
        more, top = _decoder_tokens_added(decoder, added, vocab, top)
        added += more
    added_by_id = {token.id: token for token in added}
    added_by_text: dict[str, int] = {}
    for token in added:
        added_by_text.setdefault(token.text, token.id)

    names, extras = _named_tokens(config_path, config)
    if "added_tokens_decoder" not in config:
        map_path = os.path.join(directory, SPECIAL_TOKENS_MAP_NAME)
        map_names, map_extras = _named_tokens(map_path, found.get(SPECIAL_TOKENS_MAP_NAME, {}))
        names |= map_names
        extras += (text for text in map_extras if text not in extras)
    role_texts = [text for role in SPECIAL_TOKEN_ROLES if (text := names.get(role)) is not None]
    by_text: dict[str, int] = {}  # a Unigram list's pieces, indexed when names need them
    if isinstance(vocab, list) and (role_texts or extras):
        by_text.update(zip(vocab, range(len(vocab)), strict=True))
    # As transformers does on load: each named token becomes a special added token, and
    # one that no file gives an id is appended after the highest id.
    ids: dict[str, int | None] = {}
    for text in (*role_texts, *extras):
        if text in ids:
            continue
        token_id = added_by_text.get(text)
        if token_id is None:
            token_id = vocab.get(text) if isinstance(vocab, dict) else by_text.get(text)
        if token_id is None and top is not None:
            top = token_id = top + 1
            added_by_text[text] = token_id
        ids[text] = token_id
        present = added_by_id.get(token_id) if token_id is not None else None
        if token_id is None or (present is not None and present.text != text):
            continue  # no id to give it, or its id is another added token's
        if present is None or text in role_texts:  # an extra keeps an added token's flag
            added_by_id[token_id] = AddedToken(token_id, text, special=True)
    specials = {
        role: SpecialToken(role, named, ids[named])
        for role in SPECIAL_TOKEN_ROLES
        if (named := names.get(role)) is not None
    }
    return TokenizerFiles(
        directory=directory,
        files=tuple(n for n in TOKENIZER_FILE_NAMES if n in found),
        model_type=model_type,
        length=None if top is None else top + 1,
        added_tokens=tuple(sorted(added_by_id.values(), key=lambda token: token.id)),
        special_tokens=MappingProxyType(specials),
        _vocab=vocab,
        _added_by_id=MappingProxyType(added_by_id),
        _added_by_text=MappingProxyType(added_by_text),
        _by_text=by_text,
    )


# -- tokenizer.json ------------------------------------------------------------------


def _model(
    path: str, tokenizer: Mapping[str, object]
) -> tuple[dict[str, int] | list[str], str | None, int]:
    """``model.vocab`` (text -> id, or Unigram pieces by id), ``model.type``, the highest id."""
    model = tokenizer.get("model")
    if not isinstance(model, dict):
        raise _shape(path, "model", model, "an object")
    model_type = model.get("type")
    if model_type is not None and not isinstance(model_type, str):
        raise _shape(path, "model.type", model_type, "a string")
    vocab = model.get("vocab")
    if isinstance(vocab, dict):
        return vocab, model_type, _check_vocab_ids(path, vocab)
    if isinstance(vocab, list):
        return _unigram_pieces(path, vocab), model_type, len(vocab) - 1
    raise _shape(
        path,
        "model.vocab",
        vocab,
        "an object mapping token text to id, or a list of [piece, score] pairs",
    )


def _check_vocab_ids(path: str, vocab: dict[str, object]) -> int:
    """Check that every id is an int in range, in C-speed passes; the highest id (-1 if none)."""
    if not vocab:
        return -1
    if set(map(type, vocab.values())) == {int}:
        ids = cast("ValuesView[int]", vocab.values())
        low, high = min(ids), max(ids)
        if low >= 0 and high <= _MAX_ID:
            return high
    for text, token_id in vocab.items():  # find the first bad one, to name it
        if type(token_id) is not int or not 0 <= token_id <= _MAX_ID:
            raise _shape(path, f"model.vocab[{_key(text)}]", token_id, "an integer id")
    raise AssertionError("unreachable")  # pragma: no cover


def _unigram_pieces(path: str, vocab: list[object]) -> list[str]:
    """The pieces of a Unigram ``[[piece, score], ...]`` list, by id, checked in C-speed passes."""
    if set(map(type, vocab)) <= {list}:
        pairs = cast("list[list[object]]", vocab)
        if set(map(len, pairs)) <= {2}:
            pieces = list(map(_FIRST, pairs))
            scores = map(_SECOND, pairs)
            if set(map(type, pieces)) <= {str} and set(map(type, scores)) <= {int, float}:
                return cast("list[str]", pieces)
    for index, entry in enumerate(vocab):  # find the first bad one, to name it
        if not (
            isinstance(entry, list)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and type(entry[1]) in (int, float)
        ):
            raise _shape(path, f"model.vocab[{index}]", entry, "a [piece, score] pair")
    raise AssertionError("unreachable")  # pragma: no cover


def _added_tokens(path: str, entries: object) -> list[AddedToken]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise _shape(path, "added_tokens", entries, "a list of token objects")
    tokens: list[AddedToken] = []
    by_id: dict[int, int] = {}
    for index, entry in enumerate(entries):
        where = f"added_tokens[{index}]"
        token = _token_entry(path, where, entry, entry_id=None)
        first = by_id.setdefault(token.id, index)
        if first != index and tokens[first].text != token.text:
            raise ConfigFileError(
                path,
                f"`{where}.id` is {token.id}, already the id of `added_tokens[{first}]` "
                f"({tokens[first].text!r}).",
                code=codes.TOKENIZER_FILE_MALFORMED,
                fix="give each added token its own id",
            )
        tokens.append(token)
    return tokens


def _decoder_tokens_added(
    decoder: list[AddedToken],
    added: list[AddedToken],
    vocab: dict[str, int] | list[str],
    top: int,
) -> tuple[list[AddedToken], int]:
    """The tokens of ``added_tokens_decoder`` that ``tokenizer.json`` does not add, as
    transformers adds them on load, and the new highest id.

    transformers (``TokenizersBackend.__init__``, ``PreTrainedTokenizerFast`` in 4.x)
    adds each decoder token whose text is not an added token yet, in the order of the
    decoder's ids, through the backend, which gives a text of the base vocabulary its
    id there and any other text the next id after the highest.  This matters when
    ``tokenizer.json`` has no ``added_tokens`` list at all.
    """
    present = {token.text for token in added}
    pieces = {text: index for index, text in enumerate(vocab)} if isinstance(vocab, list) else vocab
    more: list[AddedToken] = []
    for token in sorted(decoder, key=lambda token: token.id):
        if token.text in present:
            continue
        present.add(token.text)
        token_id = pieces.get(token.text)
        if token_id is None:
            top = token_id = top + 1
        more.append(AddedToken(token_id, token.text, token.special))
    return more, top


# -- tokenizer_config.json and special_tokens_map.json -------------------------------


def _added_tokens_decoder(path: str, config: Mapping[str, object]) -> list[AddedToken]:
    decoder = config.get("added_tokens_decoder")
    if decoder is None:
        return []
    if not isinstance(decoder, dict):
        raise _shape(path, "added_tokens_decoder", decoder, "an object keyed by token id")
    tokens = []
    keys_by_id: dict[int, str] = {}
    for key, entry in decoder.items():
        where = f"added_tokens_decoder[{_key(key)}]"
        if not (key.isascii() and key.isdecimal()) or len(key) > 10 or int(key) > _MAX_ID:
            raise ConfigFileError(
                path,
                f"`{where}`: the key must be a token id (a decimal number); got {key!r}.",
                code=codes.TOKENIZER_FILE_MALFORMED,
                fix="key `added_tokens_decoder` by decimal token ids",
            )
        token_id = int(key)
        if token_id in keys_by_id:  # "5" and "05": transformers keeps whichever comes last
            raise ConfigFileError(
                path,
                f"`{where}`: id {token_id} is also the key {keys_by_id[token_id]!r}, and "
                "transformers keeps whichever comes last.",
                code=codes.TOKENIZER_FILE_MALFORMED,
                fix=f"keep one entry for token id {token_id}",
            )
        keys_by_id[token_id] = key
        tokens.append(_token_entry(path, where, entry, entry_id=token_id))
    return tokens


def _token_entry(path: str, where: str, entry: object, *, entry_id: int | None) -> AddedToken:
    """One added token: ``{"id", "content", "special"}``; the id comes from the key when given."""
    if not isinstance(entry, dict):
        raise _shape(path, where, entry, 'an object with "content"')
    if entry_id is None:
        entry_id = entry.get("id")
        if type(entry_id) is not int or not 0 <= entry_id <= _MAX_ID:
            raise _shape(path, f"{where}.id", entry_id, "an integer id")
    content = entry.get("content")
    if not isinstance(content, str):
        raise _shape(path, f"{where}.content", content, "a string")
    special = entry.get("special", False)
    if not isinstance(special, bool):
        raise _shape(path, f"{where}.special", special, "true or false")
    return AddedToken(entry_id, content, special)


def _named_tokens(
    path: str, config: Mapping[str, object]
) -> tuple[dict[str, str | None], list[str]]:
    """The tokens a file names: role -> text for each ``<role>_token`` it has (``None``
    for ``null``), and the extra special tokens it lists."""
    texts: dict[str, str | None] = {}
    for role in SPECIAL_TOKEN_ROLES:
        key = f"{role}_token"
        if key in config:
            value = config[key]
            texts[role] = None if value is None else _token_text(path, key, value)
    extras: list[str] = []
    for key in _EXTRA_KEYS:
        value = config.get(key)
        if isinstance(value, dict):
            entries = [(f"{key}[{_key(name)}]", entry) for name, entry in value.items()]
        elif isinstance(value, list):
            entries = [(f"{key}[{index}]", entry) for index, entry in enumerate(value)]
        elif value is None:
            entries = []
        else:
            raise _shape(path, key, value, "a list of tokens")
        extras += (_token_text(path, where, entry) for where, entry in entries)
    return texts, extras


def _token_text(path: str, where: str, value: object) -> str:
    """A token named as a string, or as an object with ``"content"`` (older files)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        content = value.get("content")
        if isinstance(content, str):
            return content
        raise _shape(path, f"{where}.content", content, "a string")
    raise _shape(path, where, value, 'a token string, an object with "content", or null')


# -- helpers ---------------------------------------------------------------------------


def _token_id_argument(token_id: object) -> int:
    if not issubclass(type(token_id), int) or issubclass(type(token_id), bool):
        raise ParallelDraftingConfigError(
            f"`token_id` must be an int; got {describe_value(token_id)}.",
            code=codes.API_ARGUMENT_INVALID,
            fix="pass the token id as an int",
        )
    value = int.__int__(token_id)  # type: ignore[arg-type]  # an int subclass: its own value
    if value < 0:
        raise ParallelDraftingConfigError(
            f"`token_id` must not be negative; got {value}.",
            code=codes.API_ARGUMENT_INVALID,
            fix="pass a token id of 0 or more",
        )
    return value


def _shape(path: str, where: str, value: object, expected: str) -> ConfigFileError:
    return ConfigFileError(
        path,
        f"`{where}` must be {expected}; got {describe_value(value)}.",
        code=codes.TOKENIZER_FILE_MALFORMED,
        fix=f"write `{where}` as {expected}",
    )


def _key(text: str) -> str:
    """A JSON object key as it appears in a JSON path: quoted, escaped, bounded."""
    shown = json.dumps(text)
    return shown if len(shown) <= 40 else shown[:36] + '..."'
