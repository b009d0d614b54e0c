"""The Threads view: which warp, lane and register hold each element of one access's tile, and
whether the access is coalesced. ``python -m views.threads_view`` opens it with demo data."""

from .widget import ThreadsView

__all__ = ["ThreadsView"]
