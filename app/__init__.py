"""Tilescope's application layer: the main window, session, worker process, history and CLI.

Importing this package imports nothing heavy: the CLI verbs must run where Qt is absent, and the
GUI process must never import torch or triton. Each module imports what it needs.
"""
