"""A script importing a package that is not installed (the name is made up for the test)."""
import tilescope_absent_pkg  # noqa: F401
import torch

print(torch.ones(1))
