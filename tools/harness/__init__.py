"""What the engine harnesses (``tools/engines/vllm/harness``, ``tools/engines/sglang/harness``)
share.

Each harness runs a released engine on a draft, in a virtual environment of its own, one
fresh process per run. What differs is the engine: its pins, its stages, its command line,
its readings. What is the same lives here, once:

``environment``
    The cached virtual environment: its folder, its key (a hash of the torch spec, the
    requirements file's bytes and the Python version), its build.
``process``
    Starting the stage runner, alone (``run_once``) or as a server fed one request a line
    (``run_served``), and turning its silence, its death or its timeout into a report.
``serve``
    Inside the engine's environment (standard library only): the exception's record and
    the ``--serve`` loop that forks a child per request.
``readings``
    The readings' shared helpers: a file's sha256, the stage reached, writing the file,
    choosing cases by name, the progress line.
"""
