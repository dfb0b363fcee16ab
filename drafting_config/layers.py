"""The one rule for lists of target-layer ids, and for a count of target layers.

A drafter fed the target's hidden states names the target layers it taps:
``dflash_config.target_layer_ids``, ``target_layer_ids``,
``eagle_aux_hidden_state_layer_ids``, or, in the speculators format,
``aux_hidden_state_layer_ids``.  Every such list is checked here, the way
vLLM checks the target layers of its DSpark drafters: a non-empty JSON array
of ints (bools refused), unique and strictly increasing, each naming a layer
in ``[0, num_layers - 1]``.

Speculators' ``aux_hidden_state_layer_ids`` are 1-based: vLLM taps target
layer ``id - 1`` for each of them.  :func:`check_layer_ids` takes that shift
as ``offset`` and returns the 0-based target layers.

Ints follow the project's rule (:func:`~drafting_config.integers.exact_int`): a bool
is not an int; an ``int`` subclass counts as ``int.__int__(value)`` and its own methods are
never called; anything whose type is not an ``int`` subclass is refused,
whatever its ``__class__`` claims.
"""

from __future__ import annotations

from typing import cast

from drafting_config.errors import ParallelDraftingConfigError, describe_value
from drafting_config.integers import exact_int

__all__ = ["check_layer_ids"]


def check_layer_ids(
    field: str,
    value: object,
    *,
    offset: int = 0,
    num_layers: int | None = None,
    num_layers_source: str | None = None,
) -> tuple[int, ...]:
    """Check a list of target-layer ids and return the 0-based target layers it names.

    Args:
        field: the field's full path in the draft's config, for the error
            (``"dflash_config.target_layer_ids"``, ``"aux_hidden_state_layer_ids"``).
        value: the field's raw value.
        offset: what to subtract from each id to get its target layer: ``0``
            for Hugging Face fields, ``1`` for speculators'
            ``aux_hidden_state_layer_ids``, which are 1-based.
        num_layers: the target's number of layers, when known; every target
            layer must then be at most ``num_layers - 1``.
        num_layers_source: where ``num_layers`` came from, for the error
            (``"the target's num_hidden_layers"``, ``"num_target_layers"``).

    Returns:
        ``id - offset`` for each id, in order.

    Raises:
        ParallelDraftingConfigError: with ``field=field``, when ``value`` is not
            a non-empty list or tuple of ints (bools refused), its ids are not
            unique and strictly increasing, or an id names a layer below 0 or,
            with ``num_layers``, above ``num_layers - 1``.
    """
    layers, problem = _read_layer_ids(value, offset, num_layers)
    if problem is not None:
        raise _error(
            field,
            value,
            problem,
            offset=offset,
            num_layers=num_layers,
            num_layers_source=num_layers_source,
        )
    return layers


def _read_layer_ids(
    value: object, offset: int, num_layers: int | None
) -> tuple[tuple[int, ...], str | None]:
    """The target layers ``value`` names, or what is wrong with it (the first problem)."""
    kind = type(value)
    items: list[object]
    if issubclass(kind, list):  # read with list's own iterator, never a subclass's __iter__
        items = list(list.__iter__(cast("list[object]", value)))
    elif issubclass(kind, tuple):
        items = list(tuple.__iter__(cast("tuple[object, ...]", value)))
    else:
        return (), "it is not an array"
    if not items:
        return (), "it is empty"
    layers: list[int] = []
    previous: int | None = None
    for position, item in enumerate(items):
        layer_id = exact_int(item)
        if layer_id is None:
            return (), f"item {position} is {describe_value(item)}"
        if previous is not None and layer_id <= previous:
            return (), f"item {position} is {_number(layer_id)}, after {_number(previous)}"
        layer = layer_id - offset
        if layer < 0 or (num_layers is not None and layer >= num_layers):
            tapped = f", which taps target layer {_number(layer)}" if offset else ""
            return (), f"item {position} is {_number(layer_id)}{tapped}"
        layers.append(layer)
        previous = layer_id
    return tuple(layers), None


def _error(
    field: str,
    value: object,
    problem: str | None,
    *,
    offset: int,
    num_layers: int | None,
    num_layers_source: str | None,
) -> ParallelDraftingConfigError:
    """One message for every broken layer list: what was expected, the value, what is wrong."""
    if num_layers is None:
        bounds = f"each at least {offset}"
    else:
        source = f": {num_layers_source} = {num_layers}" if num_layers_source else ""
        bounds = (
            f"from {offset} to {num_layers - 1 + offset} "
            f"(the target has {num_layers} layers{source})"
        )
    detail = f": {problem}" if problem else ""
    message = (
        f"`{field}` must be a non-empty JSON array of unique, strictly increasing "
        f"layer ids (ints, not bools), {bounds}; got {describe_value(value)}{detail}."
    )
    if offset == 1:
        message += (
            " Speculators-format ids are 1-based: vLLM taps target layer id - 1, "
            "so 1 names the target's first layer."
        )
    elif offset:
        message += f" Ids here are shifted: vLLM taps target layer id - {offset}."
    return ParallelDraftingConfigError(message, field=field)


def _number(value: int) -> str:
    """An int for a message, bounded like every value in this package's errors."""
    return describe_value(value).removesuffix(" (int)")
