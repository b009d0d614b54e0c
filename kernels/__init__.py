"""Tilescope's engine: kernels, backends, checks, timing, compile facts and the tracer.

No Qt here. ``kernels.data.params`` and ``kernels.data.results`` import neither torch nor triton so that
the GUI process can use them; everything else may.
"""
