"""The SGLang harness: the released SGLang 0.5.23 run on a draft, as the tests' oracle.

Maintainers' tooling, not part of the ``drafting_config`` package, shaped like
``tools/engines/vllm/harness``. ``environment`` builds and caches the virtual environment SGLang
runs in; ``stage_runner`` is the script that runs inside it, one process per (draft,
target, algorithm), through the stages ``config``, ``registry``, ``pipeline``, ``target``,
``capture`` and ``draft`` (its docstring lists every stand-in and setting it needs on a
CPU-only machine); ``harness.run`` starts it and returns its report; ``corpus`` says which
drafts run against which targets under which algorithm; ``readings`` regenerates
``tests/real_configs/sglang_engine_runs.json``
(``python -m tools.engines.sglang.harness.readings``).

``weights`` runs the weights stage (``--weights``: a scaled draft built on the CPU and
loaded from a checkpoint by SGLang's own loader) on the vLLM harness's weights cases and
writes ``tests/real_configs/sglang_weight_runs.json``
(``python -m tools.engines.sglang.harness.weights``).

Where it stops: nothing past the draft's construction on the meta device runs, but for that
weights stage (the draft worker's mask token and tokenizer, its sharing of the target's
embedding and head, attention back-ends, KV cache, a forward pass); the checker's rules stay
the judge there.
"""
