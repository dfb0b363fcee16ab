"""The real-engine harness: the released vLLM 0.33.0 run on a draft, as the tests' oracle.

Maintainers' tooling, not part of the ``drafting_config`` package. ``environment`` builds
and caches the virtual environment vLLM runs in; ``stage_runner`` is the script that runs
inside it, one process per (draft, target, mode); ``harness.run`` starts it and returns
its report; ``corpus`` says which drafts run against which targets in which modes;
``readings`` regenerates ``tests/real_configs/vllm_readings.json``'s ``engine_runs``
(``python -m tools.vllm_harness.readings``).
"""
