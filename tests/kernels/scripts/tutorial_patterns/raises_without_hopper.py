"""Gluon tutorials 04-08's opening: raise unless the GPU is recent enough."""
import torch

if torch.cuda.get_device_capability()[0] < 10:
    raise RuntimeError("This tutorial requires a Blackwell NVIDIA GPU")
