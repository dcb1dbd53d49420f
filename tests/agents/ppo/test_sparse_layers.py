"""The fused update's cheap layers: the sparse weight gradient is the dense product, fast tanh is tanh."""

from __future__ import annotations

import pytest
import torch

from agents.ppo.sparse_layers import SparseRows, _transposed_product_kernel, fast_layers, fast_tanh, stacked_linear


def sparse_matrix(rows: int, width: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    dense = torch.randn(rows, width, generator=generator)
    dense[torch.rand(rows, width, generator=generator) > 0.1] = 0.0
    dense[::3, 0] = -0.25  # column 0 is also the padding column
    dense[2] = 0.0  # a row of zeros
    return dense


def test_transposed_product_is_the_dense_product_of_any_rows():
    dense = sparse_matrix(60, 33, seed=0)
    rows = SparseRows.of(dense)
    grad = torch.randn(60, 7, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(rows.transposed_product(grad), dense.t() @ grad, rtol=1e-5, atol=1e-5)
    order = torch.randperm(60, generator=torch.Generator().manual_seed(2))
    picked = rows.select(order)[10:40]  # rows of a shuffled minibatch, as the update reads them
    torch.testing.assert_close(
        picked.transposed_product(grad[:30]), dense[order][10:40].t() @ grad[:30], rtol=1e-5, atol=1e-5
    )
    transposed_view = torch.randn(7, 60).t()  # a gradient that is not contiguous
    torch.testing.assert_close(rows.transposed_product(transposed_view), dense.t() @ transposed_view)


def test_the_sparse_first_layer_takes_the_dense_layers_gradient():
    dense = sparse_matrix(50, 20, seed=3)
    table = torch.randn(20, 6, requires_grad=True)
    bias = torch.randn(6, requires_grad=True)
    weights = torch.randn(50, 6)
    grads = []
    for inputs in (dense, SparseRows.of(dense)):
        table.grad = bias.grad = None
        outputs = stacked_linear(inputs, [table.t()], [bias])
        (outputs * weights).sum().backward()
        grads.append((outputs.detach(), table.grad.clone(), bias.grad.clone()))
    for sparse, dense_ in zip(grads[1], grads[0]):
        torch.testing.assert_close(sparse, dense_, rtol=1e-5, atol=1e-5)


def test_the_kernel_releases_pythons_lock():
    """A pipelined update computes this gradient while the rollout's thread runs Python."""
    assert _transposed_product_kernel.targetoptions.get("nogil") is True


@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_fast_tanh_is_tanh_and_takes_its_gradient(scale):
    inputs = torch.randn(200, 9, generator=torch.Generator().manual_seed(5)) * scale
    inputs[0, :3] = torch.tensor([0.0, 1e4, -1e4])
    ours, theirs = inputs.clone().requires_grad_(), inputs.clone().requires_grad_()
    weights = torch.randn(200, 9)
    (fast_tanh(ours) * weights).sum().backward()
    (torch.tanh(theirs) * weights).sum().backward()
    torch.testing.assert_close(fast_tanh(inputs), torch.tanh(inputs), rtol=0, atol=3e-7)
    torch.testing.assert_close(ours.grad, theirs.grad, rtol=0, atol=1e-6)
    assert fast_tanh(inputs).abs().max() <= 1.0
    with torch.no_grad():  # a rollout's forward: the same numbers without autograd
        torch.testing.assert_close(fast_tanh(inputs), fast_tanh(ours.detach()), rtol=0, atol=0)


def test_fast_layers_swap_only_tanh():
    layers = [torch.nn.Linear(3, 3), torch.nn.Tanh(), torch.nn.ReLU()]
    swapped = fast_layers(layers)
    assert swapped[0] is layers[0] and swapped[1] is fast_tanh and swapped[2] is layers[2]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_sparse_rows_of_any_matrix_give_it_back(dtype):
    dense = sparse_matrix(40, 17, seed=6).to(dtype)
    rows = SparseRows.of(dense.t().contiguous().t())  # a strided view reads the same
    assert rows.values.dtype == dtype and rows.indices.shape[1] == int((dense != 0).sum(1).max())
    assert torch.equal(rows.dense(), dense)
    empty = SparseRows.of(torch.zeros(0, 5, dtype=dtype))
    assert empty.indices.shape == (0, 1) and empty.dense().shape == (0, 5)
    zeros = SparseRows.of(torch.zeros(3, 5, dtype=dtype))
    assert zeros.indices.shape == (3, 1) and torch.equal(zeros.dense(), torch.zeros(3, 5, dtype=dtype))
