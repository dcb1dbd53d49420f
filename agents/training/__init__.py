"""Self-play PPO training as a library: a run's plan (`plan`), its folder, checkpoints and loop
(`run`), and its progress log (`progress`). ``python -m experiments.train`` is the command line
over it: it parses and checks the flags, builds the one `plan.RunPlan`, and calls `run.train`.
"""
