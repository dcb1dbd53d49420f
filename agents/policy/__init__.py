"""The agent file format.

The numpy MLP (`mlp`), the data-only checkpoint (`checkpoint`), the agent that plays one
(`agent`) and numpy's BLAS limit (`blas`).
"""
