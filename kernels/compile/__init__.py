"""Compiling a kernel ahead of its run and the facts read from what it compiled to."""
