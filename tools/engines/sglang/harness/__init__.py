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

Where it stops: nothing past the draft's construction on the meta device runs (the draft
worker's mask token and tokenizer, weights, attention back-ends, KV cache, a forward pass);
the checker's rules stay the judge there.
"""
