"""A stand-in for ``torchvision``, whose wheels do not load against the CPU torch 2.13.0.

SGLang's ``srt/configs/model_config.py`` reaches it at import (through
``srt/configs/nano_nemotron_vl.py`` and ``srt/multimodal/internvl_utils.py``). No stage of
the harness processes an image; see ``placeholder_package.py`` for what the names do.
"""

from placeholder_package import install  # type: ignore[import-not-found]  # beside, on PYTHONPATH

install(__name__)
