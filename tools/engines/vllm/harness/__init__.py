"""The real-engine harness: a released vLLM run on a draft, as the tests' oracle.

Maintainers' tooling, not part of the ``drafting_config`` package. ``environment`` builds
and caches the virtual environment each vLLM release runs in (one requirements file per
release, ``requirements/VERSION.txt``); ``stage_runner`` is the script that runs
inside it, one process per (draft, target, mode); ``harness.run`` starts it and returns
its report; ``corpus`` says which drafts run against which targets in which modes;
``readings`` regenerates one release's list in ``tests/real_configs/vllm_readings.json``'s
``engine_runs`` (``python -m tools.engines.vllm.harness.readings --release VERSION``);
``weights`` runs the weights stage on its cases (a scaled draft and checkpoint each) and
writes ``tests/real_configs/vllm_weight_runs.json``
(``python -m tools.engines.vllm.harness.weights``);
``stand_ins`` holds the modules that stand in for what cannot load here (``torchvision``;
from 0.34.0 the CPU Triton, ``stand_ins/triton_cpu``).
"""
