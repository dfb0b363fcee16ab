"""SGLang's ``RULES`` (the docs' rules table reads them) are the rules ``judge`` runs, in its
order: the two are written apart, and this holds them together."""

from __future__ import annotations

import ast
import inspect

from drafting_config.engines.sglang import judging


def test_rules_are_the_rules_judge_runs_in_its_order() -> None:
    tree = ast.parse(inspect.getsource(judging))
    named = {rule.__name__ for rule in judging.RULES}
    called: list[str] = []
    for function in (node for node in tree.body if isinstance(node, ast.FunctionDef)):
        if function.name not in {"judge", "_weights_findings"}:
            continue
        names = [n for n in ast.walk(function) if isinstance(n, ast.Name)]
        for node in sorted(names, key=lambda n: (n.lineno, n.col_offset)):  # source order
            if node.id.startswith("check_"):
                called.append(node.id)
    # judge's own order, with _weights_findings' rule where judge calls it
    weights = [name for name in called if name == "check_sglang_eagle3_weights"]
    order = [name for name in called if name != "check_sglang_eagle3_weights"]
    mask = order.index("check_sglang_mask_embedding")
    order[mask:mask] = weights
    assert order == [rule.__name__ for rule in judging.RULES]
    assert set(order) == named
