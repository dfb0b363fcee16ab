"""A stand-in for ``sgl_kernel``, SGLang's CUDA kernel package (it needs ``libnvrtc.so.12``).

Class resolution reaches it: ``srt/mem_cache/memory_pool.py`` imports
``sglang/kernels/ops/kvcache/cache_move.py``, which imports it at module level. No stage of
the harness runs a kernel; see ``placeholder_package.py`` for what the names do.
"""

from placeholder_package import install  # type: ignore[import-not-found]  # beside, on PYTHONPATH

install(__name__)
