"""The cheap layers of the fused PPO update: mostly-zero observations read as `SparseRows`, and tanh.

* `SparseRows`: the nonzero entries of each row of a mostly-zero matrix (Skull King's observation:
  about 20 nonzero entries of 450), padded to the most of any row;
* `stacked_linear`: linear layers reading the same input, side by side as one matmul, or on
  `SparseRows` as one gather-sum of weight rows (`_SparseLinear`), whose weight gradient
  ``X.T @ grad`` is a numba kernel over the nonzero entries (`transposed_product`, which releases
  Python's lock so that a pipelined update's thread leaves the rollout's running);
* `sparse_input_linear`: a linear layer on a dense batch of mostly-zero rows without autograd (a rollout's
  forward), one numba pass that adds the weight rows of each row's nonzero entries (`SparseRows.of` and a
  gather-sum cost more there than they save);
* `fast_tanh`: tanh as ``2 * sigmoid(2x) - 1`` with tanh's gradient ``1 - y**2``. On this CPU build
  of torch ``torch.tanh`` costs about six times ``torch.sigmoid`` (a ``(1024, 128)`` batch: 341 and
  55 µs); the two differ by at most about 2e-7, float32's rounding.

The maths is that of the dense layers; only the rounding differs (tests compare outputs and
gradients with the policy's own modules).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numba import njit
from torch.nn import functional as F

from agents.batched.policy_stack import indexed_linear


@njit(cache=True, nogil=True)
def _transposed_product_kernel(indices: np.ndarray, values: np.ndarray, grad: np.ndarray, out: np.ndarray) -> None:
    """``out = X.T @ grad`` of the rows ``X`` whose nonzero entries are ``indices``/``values`` (padding: value 0)."""
    out[:] = 0.0
    rows, slots = indices.shape
    width = grad.shape[1]
    for row in range(rows):
        for slot in range(slots):
            value = values[row, slot]
            if value != 0.0:
                column = indices[row, slot]
                for j in range(width):
                    out[column, j] += value * grad[row, j]


@njit(cache=True, nogil=True)
def _most_nonzero_kernel(dense: np.ndarray) -> int:
    """The most nonzero entries of any row of ``dense``."""
    most = 0
    for row in range(dense.shape[0]):
        count = 0
        for column in range(dense.shape[1]):
            count += dense[row, column] != 0
        most = max(most, count)
    return most


@njit(cache=True, nogil=True)
def _sparse_rows_kernel(dense: np.ndarray, indices: np.ndarray, values: np.ndarray) -> None:
    """Each row's nonzero entries of ``dense``, in column order, into the zeroed ``indices``/``values``."""
    for row in range(dense.shape[0]):
        slot = 0
        for column in range(dense.shape[1]):
            value = dense[row, column]
            if value != 0:
                indices[row, slot] = column
                values[row, slot] = value
                slot += 1


@dataclass(frozen=True)
class SparseRows:
    """A mostly-zero ``(N, width)`` matrix by rows: ``indices[i]`` the columns of row ``i``'s nonzero
    entries and ``values[i]`` their values, both ``(N, K)``, padded with column 0 and value 0."""

    indices: torch.Tensor
    values: torch.Tensor
    width: int

    @classmethod
    def of(cls, dense: torch.Tensor) -> SparseRows:
        """The nonzero entries of a 2-d ``dense`` tensor (``K``: the most of any row, at least 1)."""
        array = dense.detach().contiguous().numpy()
        k = max(1, int(_most_nonzero_kernel(array))) if len(array) else 1
        indices = torch.zeros(dense.shape[0], k, dtype=torch.long)
        values = torch.zeros(dense.shape[0], k, dtype=dense.dtype)
        _sparse_rows_kernel(array, indices.numpy(), values.numpy())
        return cls(indices, values, dense.shape[1])

    def __len__(self) -> int:
        return self.indices.shape[0]

    def dense(self) -> torch.Tensor:
        """The ``(N, width)`` matrix."""
        return torch.zeros(len(self), self.width, dtype=self.values.dtype).scatter_add_(1, self.indices, self.values)

    def select(self, index: torch.Tensor, out: SparseRows | None = None) -> SparseRows:
        """Rows ``index``, written into ``out``'s tensors when given (no new allocation)."""
        if out is None:
            return SparseRows(self.indices[index], self.values[index], self.width)
        torch.index_select(self.indices, 0, index, out=out.indices)
        torch.index_select(self.values, 0, index, out=out.values)
        return SparseRows(out.indices, out.values, self.width)

    def __getitem__(self, rows: slice) -> SparseRows:
        return SparseRows(self.indices[rows], self.values[rows], self.width)

    def transposed_product(self, grad: torch.Tensor) -> torch.Tensor:
        """``X.T @ grad`` of these rows ``X``, ``(width, grad.shape[1])``: one pass over the nonzero entries."""
        grad = grad.contiguous()
        out = torch.empty(self.width, grad.shape[1], dtype=grad.dtype)
        values = self.values.to(grad.dtype).contiguous()
        _transposed_product_kernel(self.indices.contiguous().numpy(), values.numpy(), grad.numpy(), out.numpy())
        return out


class _SparseLinear(torch.autograd.Function):
    """``rows @ table + bias`` of `SparseRows` and a ``(width, out)`` ``table`` (a linear layer's weight,
    transposed): the forward a gather-sum of table rows, the table's gradient ``X.T @ grad``
    (`SparseRows.transposed_product`); the input takes no gradient."""

    @staticmethod
    def forward(ctx: Any, rows: SparseRows, table: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        ctx.rows = rows
        return F.embedding_bag(rows.indices, table, per_sample_weights=rows.values, mode="sum") + bias

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor, torch.Tensor]:
        return None, ctx.rows.transposed_product(grad), grad.sum(0)


def stacked_linear(
    inputs: torch.Tensor | SparseRows, weights: Sequence[torch.Tensor], biases: Sequence[torch.Tensor]
) -> torch.Tensor:
    """The outputs of linear layers (``weights[i]``: ``(out_i, in)``) on the same dense batch or
    `SparseRows`, side by side: one matmul or one gather-sum for all."""
    bias = torch.cat(list(biases))
    if isinstance(inputs, SparseRows):
        return _SparseLinear.apply(inputs, torch.cat([weight.t() for weight in weights], 1), bias)
    return F.linear(inputs, torch.cat(list(weights)), bias)


def sparse_input_linear(dense: torch.Tensor, table: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``dense @ table + bias`` of a 2-d float32 batch on the CPU, ``table`` ``(in, out)`` float32 and contiguous,
    without autograd: one pass over the nonzero entries of each row (the snapshot stack's first layer,
    `agents.batched.policy_stack.indexed_linear`, with one network)."""
    rows = dense.contiguous().numpy()
    one_network = np.zeros(len(rows), dtype=np.int64)
    return torch.from_numpy(indexed_linear(rows, one_network, table.numpy()[None], bias.numpy()[None]))


class _Tanh(torch.autograd.Function):
    """tanh through the sigmoid (`fast_tanh`); its gradient from the output, as ``torch.tanh``'s."""

    @staticmethod
    def forward(ctx: Any, inputs: torch.Tensor) -> torch.Tensor:
        outputs = _tanh_by_sigmoid(inputs)
        ctx.save_for_backward(outputs)
        return outputs

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (outputs,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, outputs)


def fast_tanh(inputs: torch.Tensor) -> torch.Tensor:
    """``tanh(inputs)`` as ``2 * sigmoid(2 * inputs) - 1``: within about 2e-7 of ``torch.tanh``, faster (without
    autograd, as in a rollout's forward, not even through an autograd ``Function``)."""
    return _Tanh.apply(inputs) if torch.is_grad_enabled() else _tanh_by_sigmoid(inputs)


def _tanh_by_sigmoid(inputs: torch.Tensor) -> torch.Tensor:
    return (inputs * 2).sigmoid_().mul_(2).sub_(1)  # one new tensor: the in-place sigmoid reuses the doubled one


def fast_layers(modules: Sequence[torch.nn.Module]) -> list[Callable[[torch.Tensor], torch.Tensor]]:
    """``modules`` as callables applied in turn, each ``torch.nn.Tanh`` replaced by `fast_tanh`."""
    return [fast_tanh if type(module) is torch.nn.Tanh else module for module in modules]
