"""A captured launch's tensors as they were before it and, for those it wrote, after it: what a
re-run of the launch starts from and is checked against.

- On a GPU the copies are made on the tensor's device (a clone: an 8 GiB tensor in milliseconds)
  and what the launch wrote is found there (``torch.equal``), while the copies of the script's
  launches together take at most ``DEVICE_SHARE`` of the device memory free at that launch;
  past it they go to the host. Copying every tensor to the host before the launch and again after
  it to compare there moved about 48 GiB through PCIe for Gluon 01's 8 GiB memcpy: the five
  Gluon tutorials with GPU-sized inputs ran out their 25-s budget on the H200 inside those copies,
  with no launch recorded.
- When the script has ended, ``settle`` moves copies to the host, largest first, until those left
  on the device take at most ``RESTING_SHARE`` of its memory: the checks that follow need the
  room (a float64 check of a 2³¹-element output takes about 80 GiB).
- A host copy is made only while it fits ``HOST_SHARE`` of the host memory available then; a
  launch whose copies fit neither place is not made: the script stops there (``TooLarge``, its
  earlier launches kept) and the reason says how large they were.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import torch

from ..run.memory import host_available

__all__ = ["DEVICE_SHARE", "HOST_SHARE", "RESTING_SHARE", "Snapshots", "TooLarge", "same"]

DEVICE_SHARE = 0.5  # of the device memory free at a launch: the copies kept there while the script runs
RESTING_SHARE = 0.125  # of the device's total memory: what the copies keep there once the script has ended
HOST_SHARE = 0.5  # of the host memory available at a launch


class TooLarge(Exception):
    """A launch whose copies fit neither the device's share nor the host's."""


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**28 else f"{n / 2**20:.1f} MiB"


def _device_room(device: torch.device) -> tuple[int, int]:
    """(bytes free on ``device``, its cached blocks included; its total)."""
    free, total = torch.cuda.mem_get_info(device)
    return free + max(0, torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)), total


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal elements, NaN equal to NaN (a launch that rewrote a NaN did not change it)."""
    if torch.equal(a, b):
        return True
    if not a.is_floating_point() or a.shape != b.shape:
        return False
    na, nb = torch.isnan(a), torch.isnan(b)
    if not bool(na.any()) or not torch.equal(na, nb):
        return False
    return torch.equal(a.masked_fill(na, 0.0), b.masked_fill(nb, 0.0))


class Snapshots:
    """The copies of one script's launches and where they are (``device_budget``, ``host_budget``,
    ``resting_budget``: bytes, in place of the shares)."""

    def __init__(self, device_budget: int | None = None, host_budget: int | None = None,
                 resting_budget: int | None = None) -> None:
        self.device_budget, self.host_budget, self.resting_budget = device_budget, host_budget, resting_budget
        self.kept: list[dict[str, torch.Tensor]] = []  # the dicts the launches hold (settle moves their tensors)
        self.on_device = 0  # bytes kept on a GPU now

    def _fits_device(self, device: torch.device, need: int) -> bool:
        if device.type == "cpu":
            return False
        room = self.device_budget if self.device_budget is not None else int(DEVICE_SHARE * _device_room(device)[0])
        return self.on_device + need <= room

    def _fits_host(self, need: int) -> bool:
        room = self.host_budget
        if room is None:
            avail = host_available()
            room = int(HOST_SHARE * avail) if avail is not None else None
        return room is None or need <= room

    def take(self, tensors: Mapping[str, torch.Tensor], what: str,
             made: Mapping[str, torch.Tensor] | None = None) -> dict[str, torch.Tensor]:
        """Copies of ``tensors`` (a launch's, ``what`` names it), on their GPU while they fit its
        share, else on the host (``made``: host copies already made, used as they are)."""
        made = made or {}
        on_gpu = {k: t for k, t in tensors.items() if t.device.type != "cpu" and k not in made}
        need = sum(_nbytes(t) for t in on_gpu.values())
        device = next(iter(on_gpu.values())).device if on_gpu else torch.device("cpu")
        here = self._fits_device(device, need)
        host_need = sum(_nbytes(t) for k, t in tensors.items() if k not in made and (not here or k not in on_gpu))
        if host_need and not self._fits_host(host_need):
            raise TooLarge(f"{what}: its tensors take {_gib(host_need + (need if here else 0))}; a copy of them "
                           "(what a re-run starts from and is checked against) fits neither the GPU's share nor "
                           "the host's, so the launch was not made")
        out: dict[str, torch.Tensor] = {}
        for k, t in tensors.items():
            if k in made:
                out[k] = made[k]
            elif here and k in on_gpu:
                try:
                    out[k] = t.detach().clone()
                except torch.OutOfMemoryError:  # the share was a guess: the host then
                    need -= _nbytes(t)
                    out[k] = t.detach().to("cpu", copy=True)
            else:
                out[k] = t.detach().to("cpu", copy=True)
        if here:
            self.on_device += need
        self.kept.append(out)
        return out

    def written(self, tensors: Mapping[str, torch.Tensor],
                before: Mapping[str, torch.Tensor]) -> tuple[list[str], dict[str, torch.Tensor]]:
        """The names whose contents differ from ``before`` (compared where the copy is), and the
        host copies made to compare (those of written tensors serve as their copies after)."""
        written, made = [], {}
        for k, t in tensors.items():
            b = before[k]
            now = t.detach() if t.device == b.device else t.detach().to(b.device, copy=True)
            if not same(now, b):
                written.append(k)
                if now is not t and now.data_ptr() != t.data_ptr():
                    made[k] = now
        return written, made

    def settle(self, notes: list[str]) -> None:
        """Once the script has ended: move copies to the host, largest first, until those left on
        the device take at most ``RESTING_SHARE`` of its memory (while the host has room)."""
        if not self.on_device:
            return
        items = [(d, k) for d in self.kept for k, t in d.items() if t.device.type != "cpu"]
        device = items[0][0][items[0][1]].device if items else None
        if device is None:
            return
        limit = self.resting_budget if self.resting_budget is not None else int(RESTING_SHARE * _device_room(device)[1])
        t0, moved = time.perf_counter(), 0
        for d, k in sorted(items, key=lambda dk: -_nbytes(dk[0][dk[1]])):
            if self.on_device <= limit:
                break
            n = _nbytes(d[k])
            if not self._fits_host(n):
                notes.append(f"the launches' copies keep {_gib(self.on_device)} of GPU memory: the host has no "
                             "room for them (a check of a large output may not fit beside them)")
                break
            d[k] = d[k].to("cpu")
            self.on_device -= n
            moved += n
        if moved:
            notes.append(f"the launches' copies were made on the GPU while the script ran; {_gib(moved)} of them "
                         f"moved to the host after it ({time.perf_counter() - t0:.1f} s), {_gib(self.on_device)} "
                         "left on the GPU")
